//! The `kiln` command-line tool.

mod cli;

use clap::Parser;

fn main() {
    restore_sigpipe();
    let args = cli::Cli::parse();
    if let Err(e) = cli::run(args) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// Rust's runtime ignores SIGPIPE, so every write to a closed pipe returns an error that
/// `println!` turns into a panic. A command-line tool reading like `cat` should instead
/// stop at once, by the signal, when its reader goes away (`kiln ops | head -1`): that
/// covers every output path, whatever prints it.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: runs first in `main`, before any thread starts; SIG_DFL is a valid action
    // for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
