/** What the auth tests run against: a real HTTP auth service on 127.0.0.1 whose answers each test scripts. */
package io.mqttgw.auth.testkit;
