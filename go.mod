module github.com/sfdbg/sfdbg

go 1.26.8

require (
	github.com/go-delve/delve v1.27.2
	github.com/peterh/liner v1.2.3
	github.com/sirupsen/logrus v1.10.2
	golang.org/x/arch v0.32.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/mattn/go-runewidth v0.0.31 // indirect
)
