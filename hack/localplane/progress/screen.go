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
	"fmt"
	"io"
	"strings"
)

// Screen shows successive views: on a terminal (ANSI) each replaces the previous one in place; otherwise (a log,
// a pipe) a view is printed as a snapshot when its body differs from the last one printed.
type Screen struct {
	// W receives the output.
	W io.Writer
	// ANSI redraws in place with cursor movements; W must be a terminal.
	ANSI bool
	// Height, with ANSI, keeps a view to this many lines (a terminal's height): a taller one cannot be redrawn in
	// place once it has scrolled. 0 does not limit.
	Height int

	// shown is the number of lines shown last (ANSI); last is the body printed last (snapshots).
	shown int
	last  string
}

// Show shows a header line and a body (lines ending with a newline, e.g. from Render).
func (s *Screen) Show(header, body string) error {
	if !s.ANSI {
		if body == s.last {
			return nil
		}
		s.last = body
		_, err := fmt.Fprintf(s.W, "%s\n%s\n", header, body)
		return err
	}
	text := header + "\n" + body
	if lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n"); s.Height > 1 && len(lines) > s.Height-1 {
		more := len(lines) - (s.Height - 2)
		text = strings.Join(lines[:s.Height-2], "\n") + fmt.Sprintf("\n… %d more lines (make the terminal taller)\n", more)
	}
	var b strings.Builder
	if s.shown > 0 {
		// Up to the first line shown last, then clear from there to the end of the screen.
		fmt.Fprintf(&b, "\x1b[%dA\r\x1b[J", s.shown)
	}
	b.WriteString(text)
	s.shown = strings.Count(text, "\n")
	_, err := io.WriteString(s.W, b.String())
	return err
}
