/** The Redis side of the route table: settings, key layout, Lua scripts, the flusher and its batches. */
package io.mqttgw.routing.redis;
