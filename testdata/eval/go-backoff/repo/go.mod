module example.com/gobackoff

go 1.22
