package io.mqttgw.routing.takeover;

/**
 * What a node hears on its takeover channel: another node wrote a route for {@code clientId} that replaced this
 * node's route with {@code epoch}. On the wire {@code "<epoch> <clientId>"} (the route script publishes it), so a
 * client id may hold any character.
 */
public record TakeoverMessage(String clientId, long epoch) {

    public String encode() {
        return epoch + " " + clientId;
    }

    /** The message, or null when {@code text} is not one. */
    public static TakeoverMessage parse(String text) {
        int space = text.indexOf(' ');
        if (space <= 0 || space == text.length() - 1) {
            return null;
        }
        try {
            return new TakeoverMessage(text.substring(space + 1), Long.parseLong(text, 0, space, 10));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
