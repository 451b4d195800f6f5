/** The route table in Redis: {@code routes.provider: redis}, a {@code RouteStore} found by ServiceLoader. */
package io.mqttgw.routing;
