/** The route table in Redis, a {@code RouteStore} found by ServiceLoader (issue 4; not built yet). */
package io.mqttgw.routing;
