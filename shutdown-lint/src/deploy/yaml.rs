//! Small read-only helpers over `saphyr`'s located YAML nodes: look up a key, read a scalar
//! as text, and turn a node's span into a [`Region`] of the manifest.

use crate::finding::Region;
use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};
use std::borrow::Cow;

/// The documents of a YAML manifest, or the `parse-error` finding that says why it could
/// not be read (`what`: "compose file", "Kubernetes manifest").
pub(crate) fn load_manifest<'t>(
    path: &std::path::Path,
    text: &'t str,
    what: &str,
) -> Result<Vec<MarkedYaml<'t>>, Box<crate::finding::Finding>> {
    load(text).map_err(|(region, msg)| {
        Box::new(super::parse_error(
            path,
            region,
            format!("malformed {what}: {msg}"),
        ))
    })
}

/// Parses every document of a YAML stream, keeping positions.
///
/// On a syntax error, returns the region of the error and the parser's message.
pub(crate) fn load(text: &str) -> Result<Vec<MarkedYaml<'_>>, (Region, String)> {
    MarkedYaml::load_from_str(text).map_err(|e| {
        let m = e.marker();
        let offset = byte_offset(text, m.index());
        let region = Region {
            line: m.line().max(1),
            column: m.col() + 1,
            end_line: m.line().max(1),
            end_column: m.col() + 1,
            offset,
            len: 0,
        };
        (region, e.info().to_owned())
    })
}

/// Strips tags (`!!str x`) to reach the node's value.
pub(crate) fn untag<'a, 'i>(node: &'a MarkedYaml<'i>) -> &'a MarkedYaml<'i> {
    match &node.data {
        YamlData::Tagged(_, inner) => untag(inner),
        _ => node,
    }
}

/// The `(key node, value node)` pair of `key` in a mapping node.
pub(crate) fn get<'a, 'i>(
    node: &'a MarkedYaml<'i>,
    key: &str,
) -> Option<(&'a MarkedYaml<'i>, &'a MarkedYaml<'i>)> {
    entries(node).find(|(k, _)| text(k).as_deref() == Some(key))
}

/// A mapping node's entries in document order (nothing for other nodes).
pub(crate) fn entries<'a, 'i>(
    node: &'a MarkedYaml<'i>,
) -> impl Iterator<Item = (&'a MarkedYaml<'i>, &'a MarkedYaml<'i>)> {
    let map = match &untag(node).data {
        YamlData::Mapping(m) => Some(m),
        _ => None,
    };
    map.into_iter()
        .flat_map(|m| m.iter())
        .map(|(k, v)| (k, untag(v)))
}

/// A sequence node's items (nothing for other nodes).
pub(crate) fn items<'a, 'i>(node: &'a MarkedYaml<'i>) -> impl Iterator<Item = &'a MarkedYaml<'i>> {
    let seq = match &untag(node).data {
        YamlData::Sequence(s) => Some(s),
        _ => None,
    };
    seq.into_iter().flat_map(|s| s.iter()).map(untag)
}

/// A scalar node as text (strings as written, numbers and booleans formatted).
pub(crate) fn text<'a>(node: &'a MarkedYaml<'_>) -> Option<Cow<'a, str>> {
    match &untag(node).data {
        YamlData::Value(Scalar::String(s)) => Some(Cow::Borrowed(s.as_ref())),
        YamlData::Value(Scalar::Integer(i)) => Some(Cow::Owned(i.to_string())),
        YamlData::Value(Scalar::FloatingPoint(f)) => Some(Cow::Owned(f.0.to_string())),
        YamlData::Value(Scalar::Boolean(b)) => Some(Cow::Owned(b.to_string())),
        YamlData::Representation(s, _, _) => Some(Cow::Borrowed(s.as_ref())),
        _ => None,
    }
}

/// Whether the node is YAML `null` (or `~`, or empty).
pub(crate) fn is_null(node: &MarkedYaml<'_>) -> bool {
    matches!(untag(node).data, YamlData::Value(Scalar::Null))
}

/// The node's span in `source` as a 1-based region.
pub(crate) fn region(source: &str, node: &MarkedYaml<'_>) -> Region {
    let span = node.span;
    let (start, end) = (span.start, span.end);
    let offset = byte_offset(source, start.index());
    let end_offset = byte_offset(source, end.index().max(start.index()));
    let (end_line, end_column) = if end.line() >= start.line() && end.index() > start.index() {
        (end.line(), end.col() + 1)
    } else {
        (start.line(), start.col() + 1)
    };
    Region {
        line: start.line().max(1),
        column: start.col() + 1,
        end_line: end_line.max(1),
        end_column,
        offset,
        len: end_offset - offset,
    }
}

/// Byte offset of the `chars`-th character of `source` (saphyr counts characters).
fn byte_offset(source: &str, chars: usize) -> usize {
    source
        .char_indices()
        .nth(chars)
        .map_or(source.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_and_regions() {
        let src = "a:\n  b: 30s\n  c: [1, 2]\n";
        let docs = load(src).unwrap();
        let (_, a) = get(&docs[0], "a").unwrap();
        let (key, b) = get(a, "b").unwrap();
        assert_eq!(text(b).as_deref(), Some("30s"));
        let r = region(src, b);
        assert_eq!((r.line, r.column, r.end_line, r.end_column), (2, 6, 2, 9));
        assert_eq!(&src[r.offset..r.offset + r.len], "30s");
        assert_eq!(region(src, key).column, 3);
        let (_, c) = get(a, "c").unwrap();
        let nums: Vec<_> = items(c).filter_map(|n| text(n)).collect();
        assert_eq!(nums, ["1", "2"]);
    }

    #[test]
    fn syntax_error_has_a_location() {
        let src = "a: [1, 2\nb: }";
        let (r, msg) = load(src).unwrap_err();
        // the `:` of `b:` inside the unclosed flow sequence: line 2, column 2
        assert_eq!(
            (r.line, r.column, &src[r.offset..r.offset + 1]),
            (2, 2, ":"),
            "{msg}"
        );
        assert!(msg.contains("':'"), "{msg}");
    }
}
