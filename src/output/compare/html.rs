//! The comparison as HTML tables (for the report).

use super::{Comparison, ridge_items, row_text};
use maud::html;

pub(super) fn render(c: &Comparison) -> String {
    html! {
        div.scroll {
            table.compare {
                thead { tr {
                    th { "Threads" } th { "ISA" } th { "Roof" } th { "Unit" }
                    @for n in c.names { th { (n) } th { "per thread" } th { "per cycle" } th { "ratio" } }
                } }
                tbody {
                    @for r in c.rows {
                        @let (head, cells) = row_text(r);
                        tr {
                            @for h in &head { td { (h) } }
                            @for cell in &cells { @for x in cell { td.n { (x) } } }
                        }
                    }
                }
            }
        }
        div.scroll {
            table.ridges {
                thead { tr { th { "Threads" } th { "File" } th { "ISA" } th { "Ridge AI per level (flop/byte)" } } }
                tbody {
                    @for rd in c.ridges {
                        @for f in &rd.files {
                            tr {
                                td.n { (rd.threads) } td { (f.file) } td { (f.isa) }
                                td { (ridge_items(f).join(", ")) }
                            }
                        }
                    }
                }
            }
        }
    }
    .into_string()
}
