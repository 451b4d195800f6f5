/** The operator command line ({@code gateway clients ...}): clients of a running node's operator API. */
package io.mqttgw.core.cli;
