/** Test kit: a real redis-server per test class, and a raw Redis client to check the table with. */
package io.mqttgw.routing.testkit;
