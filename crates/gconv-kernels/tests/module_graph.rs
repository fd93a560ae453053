//! The kernels crate's modules form no import cycle (outside tests): identity, admission,
//! dispatch and each family's files depend on each other in one direction only, so that a
//! change to a family's rules, plan, cost or emitter cannot ripple back through the others.
//! The graph is read from the sources: every `crate::m` / `super::m` path outside comments and
//! `#[cfg(test)]` modules is an edge (submodules of a family folder are their own nodes).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Module path of a source file relative to `src` (`lib` is the root, `""`).
fn module_of(rel: &Path) -> String {
    let s = rel.with_extension("").to_string_lossy().replace('\\', "/");
    let s = s.strip_suffix("/mod").unwrap_or(&s).to_string();
    if s == "lib" {
        String::new()
    } else {
        s.replace('/', "::")
    }
}

/// The crate-internal modules a file's non-test code names.
fn edges(src: &Path, name: &str, is_mod_rs: bool, text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let parent = if is_mod_rs {
        name.to_string()
    } else {
        name.rsplit_once("::")
            .map_or(String::new(), |(p, _)| p.to_string())
    };
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        for (base, rest) in [("crate::", true), ("super::", false)] {
            let mut s = line;
            while let Some(i) = s.find(base) {
                s = &s[i + base.len()..];
                let seg: Vec<&str> = s
                    .split(|c: char| !(c.is_ascii_lowercase() || c == '_' || c == ':'))
                    .next()
                    .unwrap_or("")
                    .split("::")
                    .filter(|x| !x.is_empty())
                    .collect();
                let Some(first) = seg.first() else { continue };
                let target = if rest {
                    match seg.get(1) {
                        Some(sub) if src.join(first).join(format!("{sub}.rs")).exists() => {
                            format!("{first}::{sub}")
                        }
                        _ => first.to_string(),
                    }
                } else if parent.is_empty() {
                    first.to_string()
                } else {
                    format!("{parent}::{first}")
                };
                if target != name {
                    out.insert(target);
                }
            }
        }
    }
    out
}

#[test]
fn kernel_modules_have_no_import_cycle() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let name = module_of(rel);
        let text = std::fs::read_to_string(f).expect("read source");
        let is_mod = rel.file_name().is_some_and(|n| n == "mod.rs");
        graph.insert(name.clone(), edges(&src, &name, is_mod, &text));
    }
    assert!(graph.contains_key("admit") && graph.contains_key("igemm::emit"));
    // Depth-first search for a back edge.
    fn visit(
        u: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(u.to_string(), 1);
        stack.push(u.to_string());
        for v in g
            .get(u)
            .into_iter()
            .flatten()
            .filter(|v| g.contains_key(*v))
        {
            match state.get(v) {
                Some(1) => {
                    let i = stack.iter().position(|x| x == v).unwrap_or(0);
                    let mut c = stack[i..].to_vec();
                    c.push(v.clone());
                    return Some(c);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(v, g, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(u.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for u in graph.keys() {
        if !state.contains_key(u) {
            if let Some(c) = visit(u, &graph, &mut state, &mut Vec::new()) {
                panic!("import cycle: {}", c.join(" -> "));
            }
        }
    }
}
