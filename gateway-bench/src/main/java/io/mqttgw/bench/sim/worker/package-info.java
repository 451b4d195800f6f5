/**
 * Worker processes: each runs a slice of the devices (open files are limited per process), takes one-word
 * commands on stdin and prints one JSON stats line per second on stdout; the coordinator starts and sums them.
 */
package io.mqttgw.bench.sim.worker;
