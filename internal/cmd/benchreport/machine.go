package main

import (
	"bufio"
	"database/sql"
	"os"
	"runtime"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // the driver the store uses: its bundled SQLite's version is reported
)

// machine is the report's description of where it ran.
type machine struct {
	platform, cpuModel, goVersion, sqlite string
	cpus                                  int
	loadStart, loadEnd                    string
	original                              string
	took                                  time.Duration
}

func machineInfo() machine {
	m := machine{
		platform:  runtime.GOOS + "/" + runtime.GOARCH,
		cpus:      runtime.NumCPU(),
		goVersion: runtime.Version(),
		cpuModel:  cpuModel(),
		sqlite:    sqliteVersion(),
		loadStart: loadAverage(),
	}
	return m
}

// sqliteVersion asks the store's driver for its SQLite's version.
func sqliteVersion() string {
	d, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return "unknown"
	}
	defer d.Close()
	var v string
	if err := d.QueryRow("SELECT sqlite_version()").Scan(&v); err != nil {
		return "unknown"
	}
	return v
}

// cpuModel is /proc/cpuinfo's first model name, where there is one.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown model"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown model"
}

// loadAverage is /proc/loadavg's 1-minute load, where there is one: other
// work on the machine makes every figure slower.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "unknown"
}
