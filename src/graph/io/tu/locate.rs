//! Finding a TU data set's name and files in a folder, and telling a user
//! who passed one of its files to pass the folder.

use crate::graph::io::IoError;
use std::path::{Path, PathBuf};

/// The data set's name: the folder's, or that of its only `*_A.txt` file.
pub(super) fn find_name(dir: &Path) -> Result<String, IoError> {
    let os = |source| IoError::Os { path: dir.to_path_buf(), source };
    let mut candidates = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(os)? {
        let entry = entry.map_err(os)?;
        if let Some(stem) = entry.file_name().to_str().and_then(|s| s.strip_suffix("_A.txt")) {
            if !stem.is_empty() && entry.path().is_file() {
                candidates.push(stem.to_string());
            }
        }
    }
    candidates.sort();
    let folder = dir.file_name().map(|s| s.to_string_lossy().into_owned());
    if let Some(f) = folder.as_ref().filter(|f| candidates.contains(f)) {
        return Ok(f.clone());
    }
    match candidates.len() {
        1 => Ok(candidates.pop().unwrap_or_default()),
        0 => {
            let mut what = "the adjacency file of a TU data set (DS_A.txt: one \"row, col\" line per arc)".to_string();
            let inner = data_set_folders(dir);
            if !inner.is_empty() {
                what += &format!("; this folder holds data set folders ({}): pass one of them", inner.join(", "));
            }
            Err(IoError::MissingFile { path: dir.join(format!("{}_A.txt", folder.as_deref().unwrap_or("DS"))), what })
        }
        _ => Err(IoError::Ambiguous {
            path: dir.to_path_buf(),
            candidates: candidates.iter().map(|c| format!("{c}_A.txt")).collect(),
        }),
    }
}

/// The sub-folders of `dir` that hold a `*_A.txt` file (at most 5, sorted):
/// what the user probably meant when `dir` holds no data set itself.
fn data_set_folders(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let has_a = |p: &Path| {
        std::fs::read_dir(p).is_ok_and(|mut es| {
            es.any(|e| e.is_ok_and(|e| e.file_name().to_str().is_some_and(|n| n.ends_with("_A.txt"))))
        })
    };
    let mut found: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir() && has_a(&e.path()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    if found.len() > 5 {
        found.truncate(5);
        found.push("…".into());
    }
    found
}

/// The suffixes of the files of a TU data set (`DS_<suffix>.txt`).
const FILE_SUFFIXES: [&str; 8] = [
    "A",
    "graph_indicator",
    "graph_labels",
    "node_labels",
    "edge_labels",
    "node_attributes",
    "edge_attributes",
    "graph_attributes",
];

/// When `path` is one of the files of a TU data set (`DS_A.txt`,
/// `DS_node_labels.txt`, … with `DS_A.txt` and `DS_graph_indicator.txt`
/// next to it), the error [`IoError::TuFile`] that names the folder to pass
/// instead; `None` otherwise.
pub fn file_of_dataset(path: &Path) -> Option<IoError> {
    let file = path.file_name()?.to_str()?;
    let stem = file.strip_suffix(".txt")?;
    let name = FILE_SUFFIXES.iter().find_map(|s| stem.strip_suffix(s)?.strip_suffix('_').filter(|n| !n.is_empty()))?;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let sibling = |suffix: &str| folder.join(format!("{name}_{suffix}.txt")).is_file();
    (sibling("A") && sibling("graph_indicator")).then(|| IoError::TuFile {
        path: path.to_path_buf(),
        name: name.to_string(),
        folder,
    })
}

pub(super) fn file_name(p: &Path) -> String {
    p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}
