module example.com/gomedian

go 1.22
