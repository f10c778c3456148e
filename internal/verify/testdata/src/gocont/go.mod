module example.com/gocont

go 1.26
