/** Test support shared by every module's tests (published as gateway-core's test-jar): PKI, leak checks, gateways. */
package io.mqttgw.core.testkit;
