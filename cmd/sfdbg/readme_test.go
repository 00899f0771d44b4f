package main

import (
	"os"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/debugger"
)

// The README's debugger command table is generated from the command table
// (sfdbg commands --markdown); this keeps the two in step.
func TestREADMEListsTheGeneratedCommandTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(debugger.CommandsMarkdown(), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		rows++
		if !strings.Contains(string(readme), line) {
			t.Errorf("README.md lacks the row %q; paste the table from 'sfdbg commands --markdown'", line)
		}
	}
	if rows < 10 {
		t.Fatalf("only %d command rows generated", rows)
	}
}

// Every command of the binary is named in the README's command table.
func TestREADMENamesEveryCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for name := range commands {
		if name == "version" || name == "commands" {
			continue
		}
		if !strings.Contains(string(readme), "`sfdbg "+name) {
			t.Errorf("README.md does not describe sfdbg %s", name)
		}
	}
}
