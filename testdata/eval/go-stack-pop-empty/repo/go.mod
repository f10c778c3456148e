module example.com/gostackpopempty

go 1.22
