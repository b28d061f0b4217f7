//! Integration tests: the real console router and the simulated admin API,
//! each on a random loopback port, talking real HTTP.

mod helpers;
mod html;

mod actions;
mod admin_api_client;
mod assets;
mod command_line;
mod exposure;
mod module_layout;
mod nodes_page;
mod pages;
mod resilience;
