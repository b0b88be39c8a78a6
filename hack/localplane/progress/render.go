/*
Copyright 2026 The Cluster API Provider Azure ASO Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package progress

import (
	"strings"
	"unicode/utf8"
)

// RenderOptions say how to render a tree.
type RenderOptions struct {
	// Width cuts lines to this many characters (a terminal's width, so that no line wraps); 0 does not cut.
	Width int
	// Color colours the status marks with ANSI escapes.
	Color bool
}

// marks are the status marks and their ANSI colours.
var marks = map[Status]struct{ text, color string }{
	Unknown:     {"?", "\x1b[2m"},
	Progressing: {"…", "\x1b[33m"},
	OK:          {"✓", "\x1b[32m"},
	Failed:      {"✗", "\x1b[31m"},
}

const colorReset = "\x1b[0m"

// line is a row flattened: the tree drawing and label, the state, the row, and whether it is a root.
type line struct {
	label, state string
	row          *Row
	root         bool
}

// Render prints the trees, one block per root separated by a blank line, in three columns: the tree with each
// row's label, its state, and its status mark with its message. It ends with a newline.
func Render(roots []*Row, opts RenderOptions) string {
	if len(roots) == 0 {
		return "No clusters yet.\n"
	}
	var lines []line
	for _, root := range roots {
		start := len(lines)
		lines = flatten(lines, root, "", "")
		lines[start].root = true
	}
	labelWidth, stateWidth := 0, 0
	for _, l := range lines {
		labelWidth = max(labelWidth, utf8.RuneCountInString(l.label))
		stateWidth = max(stateWidth, utf8.RuneCountInString(l.state))
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 && l.root {
			b.WriteString("\n") // a new cluster
		}
		head := pad(l.label, labelWidth) + "  " + pad(l.state, stateWidth) + "  "
		mark := marks[l.row.Status]
		text := strings.TrimRight(head+mark.text+" "+l.row.Message, " ")
		if opts.Width > 0 && utf8.RuneCountInString(text) > opts.Width {
			text = strings.TrimRight(string([]rune(text)[:opts.Width-1]), " ") + "…"
		}
		if opts.Color {
			// The mark is the first rune after head, when the line was not cut before it.
			if r := []rune(text); len(r) > utf8.RuneCountInString(head) {
				at := len(string(r[:utf8.RuneCountInString(head)]))
				text = text[:at] + mark.color + mark.text + colorReset + text[at+len(mark.text):]
			}
		}
		b.WriteString(text)
		b.WriteString("\n")
	}
	return b.String()
}

// flatten appends a row and its children, drawn as a tree: prefix goes before the row's label, indent before its
// children's.
func flatten(lines []line, row *Row, prefix, indent string) []line {
	lines = append(lines, line{label: prefix + row.Label, state: row.State, row: row})
	for i, child := range row.Children {
		if i == len(row.Children)-1 {
			lines = flatten(lines, child, indent+"└─ ", indent+"   ")
		} else {
			lines = flatten(lines, child, indent+"├─ ", indent+"│  ")
		}
	}
	return lines
}

func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s)))
}
