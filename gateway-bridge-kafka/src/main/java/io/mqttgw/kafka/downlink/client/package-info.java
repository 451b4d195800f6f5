/** What a business service uses to send a command to a device: look up its node, produce to that node's topic. */
package io.mqttgw.kafka.downlink.client;
