//! The binary itself: a bad flag or value is one line and a non-zero exit.

use std::process::Command;

fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_llmgw-console"))
        .args(args)
        .current_dir(std::env::temp_dir())
        .output()
        .expect("the binary runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_flags_and_values_exit_non_zero_with_a_one_line_reason() {
    for args in [
        &["--bogus"][..],
        &["--refresh-seconds", "0"],
        &["--admin-api", "ftp://x"],
        &["--listen", "nowhere"],
        &["--actor-header", "bad header"],
        &["--config", "/no/such/file.toml"],
        &["simulate", "--nodes", "10"],
    ] {
        let (code, stderr) = run(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("llmgw-console: "), "{args:?}: {stderr}");
    }
}

#[test]
fn help_explains_every_setting() {
    let out = Command::new(env!("CARGO_BIN_EXE_llmgw-console"))
        .arg("--help")
        .output()
        .expect("the binary runs");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--listen",
        "--admin-api",
        "--demo",
        "--refresh-seconds",
        "--read-only",
        "--actor-header",
        "--config",
        "simulate",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
}
