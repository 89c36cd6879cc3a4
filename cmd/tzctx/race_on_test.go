//go:build race

package main

// raceEnabled is set where the tests run under the race detector, whose
// shadow memory makes a child process's peak RSS vary with the machine.
const raceEnabled = true
