module example.com/goreversewords

go 1.22
