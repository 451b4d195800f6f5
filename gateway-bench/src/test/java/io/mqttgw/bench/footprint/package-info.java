/** Heap bytes an established device connection keeps, measured on its object graph. */
package io.mqttgw.bench.footprint;
