module example.com/captest

go 1.26
