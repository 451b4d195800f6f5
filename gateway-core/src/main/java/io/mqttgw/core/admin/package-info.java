/**
 * The admin plane: read-only HTTP endpoints (metrics, liveness, readiness) apart from authenticated operations
 * (downlink), each listener on the admin thread.
 */
package io.mqttgw.core.admin;
