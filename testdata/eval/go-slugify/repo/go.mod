module example.com/goslugify

go 1.22
