//! Where the found signals live: the scope the map is written relative to (where the state
//! lives, widened to hold the clock and the rest), and each signal by its name inside it.

use std::collections::{BTreeMap, HashMap};

use super::Discovery;
use super::signals::{Clock, Signals};

/// `name` relative to `scope`.
pub(crate) fn relative(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        return name.to_string();
    }
    name.strip_prefix(scope)
        .and_then(|r| r.strip_prefix('.'))
        .unwrap_or(name)
        .to_string()
}

fn parent(name: &str) -> &str {
    name.rsplit_once('.').map_or("", |(p, _)| p)
}

/// Both names are in the same scope.
pub(crate) fn siblings(a: &str, b: &str) -> bool {
    parent(a) == parent(b)
}

/// The longest scope that contains every name.
fn common_scope<'a>(mut names: impl Iterator<Item = &'a str>) -> String {
    let Some(first) = names.next() else {
        return String::new();
    };
    let mut scope = parent(first).to_string();
    for n in names {
        while !scope.is_empty() && !n.starts_with(&format!("{scope}.")) {
            scope = parent(&scope).to_string();
        }
    }
    scope
}

fn signal_of(probe: &str) -> String {
    probe.split('[').next().unwrap_or(probe).to_string()
}

/// Writes `full` (map field -> full probe) into `d` relative to a scope: where the fields
/// `is_state` names live (else every field, else the serial digest port), widened to hold
/// every signal and the clock; each signal then by its name inside the scope when it has one
/// (a port and the net outside share one signal). Sets `d.scope`, `d.clock`, `d.fields`, and
/// renames `d.digest_serial`.
pub(crate) fn write_scoped(
    d: &mut Discovery,
    signals: &Signals,
    clock: &Clock,
    full: &BTreeMap<String, String>,
    is_state: impl Fn(&str) -> bool,
) {
    let state: Vec<String> = full
        .iter()
        .filter(|(f, _)| is_state(f))
        .map(|(_, p)| signal_of(p))
        .collect();
    let mut names: Vec<String> = if state.is_empty() {
        full.values().map(|p| signal_of(p)).collect()
    } else {
        state
    };
    if let (Some((data, _)), true) = (&d.digest_serial, names.is_empty()) {
        names.push(signal_of(data));
    }
    let mut scope = common_scope(names.iter().map(String::as_str));
    let track_by_name: HashMap<&str, u32> = signals.ids().map(|t| (signals.name(t), t)).collect();
    let in_scope = |scope: &str, name: &str| -> String {
        let inside = |n: &&String| scope.is_empty() || n.starts_with(&format!("{scope}."));
        track_by_name
            .get(name)
            .and_then(|&t| signals.names(t).iter().find(inside))
            .cloned()
            .unwrap_or_else(|| name.to_string())
    };
    let rename = |scope: &str, probe: &str| -> String {
        let name = signal_of(probe);
        format!("{}{}", in_scope(scope, &name), &probe[name.len()..])
    };
    let clock_name = signals.name(clock.track);
    let mut all: Vec<String> = full.values().map(|p| rename(&scope, p)).collect();
    if let Some((data, valid)) = &d.digest_serial {
        all.push(rename(&scope, data));
        all.push(rename(&scope, valid));
    }
    all.push(in_scope(&scope, clock_name));
    all.extend(d.when.values().map(|w| in_scope(&scope, w)));
    let outside = |n: &String| !scope.is_empty() && !n.starts_with(&format!("{scope}."));
    if all.iter().any(outside) {
        let names: Vec<String> = all.iter().map(|p| signal_of(p)).collect();
        scope = common_scope(names.iter().map(|n| n.as_str()));
    }
    d.clock = in_scope(&scope, clock_name);
    d.fields = full
        .iter()
        .map(|(k, v)| (k.clone(), relative(&scope, &rename(&scope, v))))
        .collect();
    if let Some((data, valid)) = &mut d.digest_serial {
        *data = relative(&scope, &rename(&scope, data));
        *valid = relative(&scope, &rename(&scope, valid));
    }
    d.when = std::mem::take(&mut d.when)
        .into_iter()
        .map(|(f, w)| (f, relative(&scope, &in_scope(&scope, &w))))
        .collect();
    d.scope = scope;
}
