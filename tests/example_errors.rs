//! `fn main() -> kronograph::Result<()>` prints the error's message, not its
//! Debug tree: runs the `mutag_gram` example binary on a missing data set.
//!
//! The example is built by `cargo test` (all targets); when only this test
//! was built (`cargo test --test example_errors`), it says so and passes
//! (`KRONOGRAPH_REQUIRE_EXAMPLES=1` makes that a failure).

use std::path::PathBuf;
use std::process::Command;

/// `target/<profile>/examples/<name>`, next to this test's `deps/` folder.
fn example(name: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.join("examples");
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    path.exists().then_some(path)
}

#[test]
fn main_returning_an_error_prints_its_message() {
    let Some(bin) = example("mutag_gram") else {
        assert!(
            std::env::var_os("KRONOGRAPH_REQUIRE_EXAMPLES").is_none(),
            "the mutag_gram example is not built (run `cargo test` for all targets)"
        );
        eprintln!("skipped: the mutag_gram example is not built (run `cargo test` for all targets)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("NO_SUCH_SET");
    let out = Command::new(&bin).arg(&missing).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err.lines().next().unwrap_or_default();
    // std prints `Error: {:?}`; the crate's Debug is its Display
    assert!(first.starts_with("Error: "), "{err}");
    assert!(first.contains("NO_SUCH_SET"), "the message names the path: {err}");
    for debug_form in ["Io(", "Os {", "path:", "source:"] {
        assert!(!err.contains(debug_form), "Debug form `{debug_form}` in: {err}");
    }
    assert!(out.stdout.is_empty(), "no output before the error");
}
