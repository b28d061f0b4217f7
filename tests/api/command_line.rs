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

#[test]
fn a_data_dir_whose_full_path_is_not_utf8_is_refused_at_start() {
    use std::os::unix::ffi::OsStrExt;
    let base = std::env::temp_dir().join(format!("llmgw-test-data-dir-{}", std::process::id()));
    let odd = base.join(std::ffi::OsStr::from_bytes(b"journal-\xff"));
    std::fs::create_dir_all(&odd).expect("made");
    // Named in UTF-8, but a link to the directory that is not.
    let link = base.join("journal");
    std::os::unix::fs::symlink(&odd, &link).expect("linked");
    let mut child = Command::new(env!("CARGO_BIN_EXE_llmgw-console"))
        .args(["--demo", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&link)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().expect("waited") {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("piped"), &mut stderr)
        .expect("read");
    let _ = std::fs::remove_dir_all(&base);
    let status = status.expect("refused at start, not left running");
    assert_eq!(status.code(), Some(1), "{stderr}");
    let reason = stderr.trim().lines().last().unwrap_or_default();
    assert!(
        reason.starts_with("llmgw-console: --data-dir") && reason.contains("not UTF-8"),
        "{stderr}"
    );
}
