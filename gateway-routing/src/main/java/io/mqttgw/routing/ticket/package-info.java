/** TLS session-ticket keys shared by all nodes through Redis, so a device resumes its session on any node. */
package io.mqttgw.routing.ticket;
