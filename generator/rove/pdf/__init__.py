"""PDF output (ReportLab): card sheets, puzzle books, design reports."""
