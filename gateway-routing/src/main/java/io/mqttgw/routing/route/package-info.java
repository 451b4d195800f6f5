/** Route operations as queued by event loops, the bounded queue and per-device coalescing. */
package io.mqttgw.routing.route;
