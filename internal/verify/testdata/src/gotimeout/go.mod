module example.com/slow

go 1.26
