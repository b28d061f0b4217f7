//! Integration tests: the real console router and the simulated admin API,
//! each on a random loopback port, talking real HTTP.

mod support;

mod actions;
mod admin_api_client;
mod advice;
mod assets;
mod audit;
mod bounded_state;
mod clusters;
mod command_line;
mod exports;
mod exposure;
mod faults;
mod fixes;
mod holds;
mod journal;
mod journal_cost;
mod journal_lifecycle;
mod journal_outage;
mod journal_partition;
mod journal_since;
mod journal_views;
mod metrics;
mod module_layout;
mod nodes_page;
mod pages;
mod paging;
mod resilience;
mod shared_poll;
mod team_links;
mod theme;
mod updates;
mod wall;
