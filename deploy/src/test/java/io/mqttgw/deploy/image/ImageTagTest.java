package io.mqttgw.deploy.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The image the build makes and the image the manifests run are the same: the image tag (image.tag in this module's
 * pom) is the project version without -SNAPSHOT, and every manifest under kubernetes/ names exactly that tag.
 */
class ImageTagTest {
    private static final Pattern IMAGE = Pattern.compile("^\\s*(?:-\\s*)?image:\\s*\"?(mqtt-gateway:[^\"\\s]+)",
            Pattern.MULTILINE);

    /** The image.tag of this module's pom. */
    static String imageTag() throws Exception {
        return child(pom(), "image.tag");
    }

    private static Element pom() throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document doc = factory.newDocumentBuilder().parse(Path.of("pom.xml").toFile());
        return doc.getDocumentElement();
    }

    private static String child(Element parent, String name) {
        return ((Element) parent.getElementsByTagName(name).item(0)).getTextContent().strip();
    }

    @Test
    void theImageTagIsTheReleaseOfTheProjectVersion() throws Exception {
        Element pom = pom();
        String version = child((Element) pom.getElementsByTagName("parent").item(0), "version");
        assertEquals(version.replace("-SNAPSHOT", ""), child(pom, "image.tag"), "image.tag against version " + version);
        String jib = Files.readString(Path.of("pom.xml"), StandardCharsets.UTF_8);
        // the tag Jib writes is the property, not the version with its -SNAPSHOT
        assertFalse(jib.contains("<image>mqtt-gateway:${project.version}</image>"), "Jib's <to> image");
    }

    @Test
    void everyManifestRunsTheTagTheBuildMakes() throws Exception {
        String expected = "mqtt-gateway:" + child(pom(), "image.tag");
        List<Path> manifests;
        try (Stream<Path> files = Files.walk(Path.of("kubernetes"))) {
            manifests = files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        int images = 0;
        for (Path manifest : manifests) {
            Matcher m = IMAGE.matcher(Files.readString(manifest, StandardCharsets.UTF_8));
            while (m.find()) {
                images++;
                assertEquals(expected, m.group(1), manifest.toString());
            }
        }
        assertFalse(images == 0, "no manifest names the mqtt-gateway image: " + manifests);
    }
}
