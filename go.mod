module github.com/puzzled/puzzled

go 1.26.8
