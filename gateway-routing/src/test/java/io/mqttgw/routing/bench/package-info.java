/** The route-table benchmark (a main class, not run by the build). */
package io.mqttgw.routing.bench;
