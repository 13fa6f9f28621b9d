use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cloth_tuner::cli::Cli::parse();
    match cloth_tuner::cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            cloth_tuner::cli::print_error(&e);
            ExitCode::FAILURE
        }
    }
}
