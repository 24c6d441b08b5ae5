package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The JUnit XML report of `puzzlectl check --junit FILE`: the Ant/Surefire
// format that Jenkins, GitLab, GitHub Actions reporters and TeamCity read.
// One <testsuite> holds one <testcase> per level, named by its file (and
// line, in an NDJSON file), with the kind as classname. A level that does
// not meet its expectation has a <failure>; a job without a verdict an
// <error>. Every case's <system-out> names the job and its page.
// cmd/puzzlectl/testdata/junit.xsd describes what is written; the tests
// validate reports against it with xmllint.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// junitReport builds the report of a check.
func junitReport(suite string, rep *checkReport) junitSuites {
	total := seconds(rep.ElapsedMS)
	s := junitSuite{
		Name: suite, Tests: rep.Total, Failures: rep.Failed, Errors: rep.Errors, Time: total,
		Timestamp: rep.started.UTC().Format("2006-01-02T15:04:05"),
	}
	if rep.BatchID != 0 {
		s.Properties = []junitProperty{
			{Name: "batch", Value: strconv.FormatInt(rep.BatchID, 10)},
			{Name: "batch_url", Value: rep.BatchURL},
			{Name: "cached", Value: strconv.Itoa(rep.Cached)},
		}
	}
	for _, c := range rep.Levels {
		jc := junitCase{Name: c.Name, Classname: c.Kind, Time: seconds(c.ElapsedMS), SystemOut: c.systemOut()}
		if jc.Classname == "" {
			jc.Classname = "level"
		}
		problem := &junitProblem{Message: c.Reason, Type: c.Verdict, Text: strings.Join(c.details(), "\n")}
		switch c.Status {
		case caseFail:
			if problem.Type == "" {
				problem.Type = "invalid"
			}
			jc.Failure = problem
		case caseError:
			problem.Type = "no-verdict"
			jc.Error = problem
		}
		s.Cases = append(s.Cases, jc)
	}
	return junitSuites{Name: suite, Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Time: total,
		Suites: []junitSuite{s}}
}

// systemOut says where the level's job is and how it came out.
func (c *checkCase) systemOut() string {
	if c.JobID == 0 {
		return ""
	}
	s := fmt.Sprintf("job %d: %s", c.JobID, c.Verdict)
	if c.Cached {
		s += " (cached)"
	}
	return s + "\n" + c.URL
}

func seconds(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64) }

// writeJUnitFile writes the report to path, through a temporary file in
// the same folder so that a reader never sees half of it.
func writeJUnitFile(path, suite string, rep *checkReport) error {
	data, err := xml.MarshalIndent(junitReport(suite, rep), "", "  ")
	if err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".junit-*.xml")
	if err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(xml.Header + string(data) + "\n"); err != nil {
		tmp.Close()
		return fmt.Errorf("junit report: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	return nil
}
