/**
 * The coordinator: checks the gateway is reachable, starts the workers, drives the scenario's phases, sums the
 * workers' stats once a second into a timeline and a live line, and reads the gateway's own figures (metrics,
 * /proc, a GC through jcmd) around each phase.
 */
package io.mqttgw.bench.sim.scenario;
