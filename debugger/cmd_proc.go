package debugger

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// cmdInfoProc implements "info proc [mappings]" as gdb's linux-tdep.c
// prints it: the process's command line, cwd and executable, or its
// mappings from /proc/PID/maps.
func cmdInfoProc(s *Session, args string) error {
	pid := s.tgt.Pid()
	if pid == 0 {
		return errors.New(`info proc: a core has no /proc entry; "info sharedlibrary" lists its modules.`)
	}
	switch strings.TrimSpace(args) {
	case "":
		s.printf("process %d\n", pid)
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
			s.printf("cmdline = '%s'\n", strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " "))
		}
		for _, l := range [...]string{"cwd", "exe"} {
			if t, err := os.Readlink(fmt.Sprintf("/proc/%d/%s", pid, l)); err == nil {
				s.printf("%s = '%s'\n", l, t)
			}
		}
		return nil
	case "mappings", "mapping", "map":
	default:
		return fmt.Errorf(`info proc: %q is not a subcommand this sfdbg knows ("info proc" or "info proc mappings").`, args)
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return fmt.Errorf("info proc mappings: %v", err)
	}
	defer f.Close()
	s.printf("process %d\nMapped address spaces:\n\n", pid)
	s.printf("  %18s %18s %10s %10s  %-6s %s\n", "Start Addr", "  End Addr", "      Size", "    Offset", "Perms", "objfile")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 7f1c2a000000-7f1c2a022000 r--p 00000000 08:01 1234   /usr/lib/x86_64-linux-gnu/libc.so.6
		fl := strings.Fields(sc.Text())
		if len(fl) < 5 {
			continue
		}
		lo, hi, ok := strings.Cut(fl[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(fl[2], 16, 64)
		if !ok || err1 != nil || err2 != nil || err3 != nil || end < start {
			continue
		}
		name := ""
		if len(fl) > 5 {
			name = strings.Join(fl[5:], " ")
		}
		s.printf("  %18s %18s %10s %10s  %-6s %s\n", fmt.Sprintf("%#x", start), fmt.Sprintf("%#x", end),
			fmt.Sprintf("%#x", end-start), fmt.Sprintf("%#x", off), fl[1], name)
	}
	return sc.Err()
}

// cmdInfoInferiors implements "info inferiors": sfdbg debugs one process
// (or one core) at a time, inferior 1 as gdb numbers it.
func cmdInfoInferiors(s *Session, _ string) error {
	s.printf("  %-4s %-17s %-20s %s\n", "Num", "Description", "Connection", "Executable")
	if s.tgt == nil {
		s.printf("* %-4d %-17s %-20s %s\n", 1, "<null>", "", "")
		return nil
	}
	desc, conn, exe := fmt.Sprintf("process %d", s.tgt.Pid()), "1 (native)", ""
	if pid := s.tgt.Pid(); pid == 0 {
		desc, conn = "core", "1 (core)"
	} else if t, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil {
		exe = t
	}
	if exe == "" {
		if sp, err := s.space(); err == nil {
			if ms := mainFirst(sp); len(ms) > 0 {
				exe = ms[0].Path
			}
		}
	}
	s.printf("* %-4d %-17s %-20s %s\n", 1, desc, conn, exe)
	return nil
}

// cmdShell implements "shell CMD" (and "!CMD"): CMD runs in /bin/sh, its
// output shown, as gdb does; its exit status is not an error of sfdbg's.
func cmdShell(s *Session, args string) error {
	args = strings.TrimSpace(args)
	shell := os.Getenv("SHELL")
	if shell == "" {
		shell = "/bin/sh"
	}
	var c *exec.Cmd
	if args == "" {
		c = exec.Command(shell)
		c.Stdin = os.Stdin
	} else {
		c = exec.Command(shell, "-c", args)
	}
	c.Stdout, c.Stderr = s.ui, s.ui
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil // gdb shows the command's own output and goes on
		}
		return fmt.Errorf("shell: %v", err)
	}
	return nil
}
