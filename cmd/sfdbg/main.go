// Command sfdbg checks SFrame stack-trace data: it dumps and validates
// .sframe sections, unwinds live processes from SFrame alone and compares
// every frame with DWARF CFI and frame-pointer unwinding.
//
// This package owns the command line and nothing else: the subcommands
// (dump, check, diff, report, bt, sample, catch, core, demo, attach, run,
// verify, commands, version; one file each, registered in one table), their
// flags, output formats and files, and exit statuses. Decoding is package
// sframe's, unwinding frames', the comparison and its text and JSON
// compare's, and process control and the REPL debugger's; main parses
// arguments, calls them and writes what they return. It may import every
// sfdbg package (sframe ← frames ← compare ← debugger ← cmd/sfdbg); nothing
// imports it.
//
// Exit statuses: 0 success (and, for check, bt and sample, no
// disagreement between SFrame and CFI); 1 a disagreement; 2 bad usage,
// unreadable or malformed input, a failed batch command, or a process that
// cannot be attached. catch exits with its program's status instead (the
// exit code, or 128+N for signal N), and 125-127 when it cannot run it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/sirupsen/logrus"
)

// Exit statuses.
const (
	exitOK       = 0
	exitFindings = 1
	exitError    = 2
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// command is one subcommand of the binary. Each lives in its own file and
// registers itself in init.
type command struct {
	name    string
	usage   string // e.g. "dump [--json] FILE"
	summary string // one line
	// run parses its own flags from args (after the command name) and
	// returns the exit status. Output goes to stdout/stderr given.
	run func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func init() {
	c := &command{name: "version", usage: "version", summary: "print the sfdbg version"}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		if st, ok := parseFlags(fs, args); !ok {
			return st
		}
		if fs.NArg() != 0 {
			fs.Usage()
			return exitError
		}
		fmt.Fprintf(stdout, "sfdbg %s\n", version)
		return exitOK
	}
	register(c)
}

// globalFlags are the flags before the command, as usage lists them.
const globalFlags = `flags (before COMMAND):
  --log-level LEVEL   how much sfdbg logs about its internals, on stderr (default warning):
                      panic, fatal, error, warning, info, debug, trace
  --version           print the version (as "sfdbg version")
  -h, --help          print this help
`

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: sfdbg [--log-level LEVEL] COMMAND [ARGS]\n\n%s\ncommands:\n", globalFlags)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := commands[n]
		fmt.Fprintf(w, "  sfdbg %s\n      %s\n", c.usage, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'sfdbg COMMAND --help' for a command's flags.\n")
}

// newFlagSet returns a flag set for a subcommand whose --help prints the
// usage line and summary, then the flags.
func newFlagSet(c *command, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: sfdbg %s\n\n%s\n", c.usage, c.summary)
		var any bool
		fs.VisitAll(func(*flag.Flag) { any = true })
		if any {
			fmt.Fprintf(stderr, "\nflags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args with fs; it returns (status, false) when the caller
// must exit with status (help asked for, or bad flags).
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK, false
		}
		return exitError, false
	}
	return 0, true
}

// programArgs returns the program and its arguments after fs's flags (a
// leading "--" dropped), for the commands that start a program (run,
// catch); false, after printing the usage, when there is none.
func programArgs(fs *flag.FlagSet) ([]string, bool) {
	argv := fs.Args()
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		fs.Usage()
		return nil, false
	}
	return argv, true
}

func run(args []string, stdout, stderr io.Writer) int {
	level := "warning"
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		switch {
		case a == "--log-level" || a == "-log-level":
			if len(args) < 2 {
				fmt.Fprintln(stderr, "sfdbg: --log-level needs a value (panic, fatal, error, warning, info, debug, trace)")
				return exitError
			}
			level, args = args[1], args[2:]
		case strings.HasPrefix(a, "--log-level=") || strings.HasPrefix(a, "-log-level="):
			level, args = a[strings.Index(a, "=")+1:], args[1:]
		case a == "-h" || a == "--help" || a == "-help":
			usage(stdout)
			return exitOK
		case a == "--version" || a == "-version":
			args = []string{"version"}
		default:
			fmt.Fprintf(stderr, "sfdbg: unknown flag %s\n", a)
			usage(stderr)
			return exitError
		}
	}
	lv, err := logrus.ParseLevel(level)
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg: %v\n", err)
		return exitError
	}
	logrus.SetLevel(lv)
	logrus.SetOutput(stderr)
	if len(args) == 0 {
		usage(stderr)
		return exitError
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "sfdbg: unknown command %q\n", args[0])
		usage(stderr)
		return exitError
	}
	return c.run(args[1:], stdout, stderr)
}

func main() {
	os.Exit(profiled(func() int { return run(os.Args[1:], os.Stdout, os.Stderr) }))
}
