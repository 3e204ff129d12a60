"""Print presets and preflight (``rove cards --preset``): every number is read back from the files.

Page sizes and boxes come from pypdf, pixel sizes and resolution tags from Pillow, colour
operators from the PDF content streams; the renderer's own figures are never trusted.
"""

from __future__ import annotations

import io
import json
from functools import cache
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader
from typer.testing import CliRunner

from rove.cli import app
from rove.pdf.cards import MM, CardOptions, card_faces, render_cards_pdf, render_faces_pdf
from rove.pdf.preflight import check_faces_pdf, preflight_lines, run_preflight
from rove.pdf.presets import PRESETS
from rove.pdf.printing import PrintFiles, render_print, resolve_job, stamp_text, tts_grid
from rove.spec import Spec, load_spec
from rove.titles import TitleFit

IN = 72.0  # points per inch


@cache
def classic() -> Spec:
    return load_spec("classic")


@cache
def printed(preset: str) -> PrintFiles:
    return render_print(classic(), resolve_job(preset))


def box(page, name: str) -> tuple[float, ...]:  # type: ignore[no-untyped-def]
    return tuple(round(float(v), 2) for v in page[name])


def content_ops(page) -> set[bytes]:  # type: ignore[no-untyped-def]
    return {op for _, op in page.get_contents().operations}


def marks(page) -> list[str]:  # type: ignore[no-untyped-def]
    return [w.removeprefix("rove-face:") for w in page.extract_text().split() if w.startswith("rove-face:")]


def run(*args: str) -> object:
    return CliRunner().invoke(app, ["cards", *args])


# --------------------------------------------------------------------------- presets


def test_every_preset_the_issue_names_exists() -> None:
    assert set(PRESETS) == {"home-a4", "home-letter", "drivethrucards", "thegamecrafter",
                            "makeplayingcards", "tts"}


def test_list_presets_prints_what_each_sets() -> None:
    result = run("--list-presets", "--json")
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.output)}
    assert set(rows) == set(PRESETS)
    assert rows["drivethrucards"]["bleed_mm"] == 3.175 and rows["drivethrucards"]["color"] == "cmyk"
    assert rows["drivethrucards"]["order"] == "back-front"
    assert rows["thegamecrafter"]["shape"] == "png" and rows["thegamecrafter"]["dpi"] == 300
    table = run("--list-presets")
    assert table.exit_code == 0
    for name in PRESETS:
        assert name in table.output


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_bundled_deck_passes_every_preset(preset: str) -> None:
    result = run_preflight(printed(preset))
    assert result.ok, "\n".join(preflight_lines(result))
    assert result.faces >= 36


def test_home_sheets_carry_boxes_and_ask_for_actual_size() -> None:
    for preset, size in (("home-a4", (210 * MM, 297 * MM)), ("home-letter", (612.0, 792.0))):
        data = printed(preset).pdf
        assert data is not None
        pdf = PdfReader(io.BytesIO(data))
        assert pdf.trailer["/Root"]["/ViewerPreferences"]["/PrintScaling"] == "/None"
        for page in pdf.pages:
            media, trim, bleed = box(page, "/MediaBox"), box(page, "/TrimBox"), box(page, "/BleedBox")
            assert media == (0, 0, round(size[0], 2), round(size[1], 2))
            assert media[0] < trim[0] and trim[2] < media[2]
            assert bleed[0] <= trim[0] and trim[2] <= bleed[2]
    # With bleed the BleedBox grows past the TrimBox by the bleed on every side.
    pdf = PdfReader(io.BytesIO(render_cards_pdf(classic(), CardOptions("a4", "fronts", 3.0, "poker"))))
    trim, bleed = box(pdf.pages[0], "/TrimBox"), box(pdf.pages[0], "/BleedBox")
    assert trim[0] - bleed[0] == pytest.approx(3 * MM, abs=0.01)
    assert bleed[3] - trim[3] == pytest.approx(3 * MM, abs=0.01)


def test_drivethrucards_is_one_card_a_page_back_then_front_cmyk() -> None:
    data = printed("drivethrucards").pdf
    assert data is not None
    pdf = PdfReader(io.BytesIO(data))
    pairs = card_faces(classic())
    assert len(pdf.pages) == 2 * len(pairs)
    expected = [f.key for front, back in pairs for f in (back, front)]
    assert [k for page in pdf.pages for k in marks(page)] == expected
    for page in pdf.pages:
        assert box(page, "/MediaBox") == (0, 0, 2.75 * IN, 3.75 * IN)  # 1/8 in bleed on poker
        assert box(page, "/TrimBox") == (9, 9, 9 + 2.5 * IN, 9 + 3.5 * IN)
        assert box(page, "/BleedBox") == box(page, "/MediaBox")
        ops = content_ops(page)
        assert not ops & {b"rg", b"RG", b"g", b"G"}, "an RGB or grey colour in a CMYK file"
        assert b"k" in ops
    fonts = pdf.pages[1]["/Resources"]["/Font"]
    assert all("/FontFile2" in f.get_object()["/FontDescriptor"] for f in fonts.values())


def test_rgb_is_the_default_and_cmyk_an_option() -> None:
    rgb = PdfReader(io.BytesIO(render_cards_pdf(classic(), CardOptions())))
    assert b"rg" in content_ops(rgb.pages[0])
    cmyk = PdfReader(io.BytesIO(render_cards_pdf(classic(), CardOptions(color="cmyk"))))
    assert not content_ops(cmyk.pages[0]) & {b"rg", b"RG"} and b"k" in content_ops(cmyk.pages[0])


@pytest.mark.parametrize(("preset", "size"), [("thegamecrafter", (825, 1125)),
                                              ("makeplayingcards", (815, 1110))])
def test_png_presets_are_exact_pixel_sizes(preset: str, size: tuple[int, int]) -> None:
    files = printed(preset).files
    assert sorted(files) == sorted(f"{f.key}.png" for pair in card_faces(classic()) for f in pair)
    for data in files.values():
        with Image.open(io.BytesIO(data)) as im:
            assert im.format == "PNG" and im.size == size
            assert im.info["dpi"] == pytest.approx((300, 300), abs=0.05)


def test_tts_sheet_has_the_hidden_card_last_and_backs_in_the_same_cells() -> None:
    out = printed("tts")
    manifest = json.loads(out.files["deck.json"])
    assert manifest["sheets"] == [{"cols": 10, "rows": 2, "cards": 18, "fronts": "deck-1-fronts.png",
                                   "backs": "deck-1-backs.png"}]
    assert tts_grid(18) == (10, 2) and tts_grid(69) == (10, 7) and tts_grid(3) == (4, 2)
    cw, ch = manifest["card_px"]
    assert (cw, ch) == (375, 525)  # 2.5 x 3.5 in at 150 dpi
    with Image.open(io.BytesIO(out.files["deck-1-fronts.png"])) as fronts, \
            Image.open(io.BytesIO(out.files["deck-1-backs.png"])) as backs:
        assert fronts.size == backs.size == (10 * cw, 2 * ch)
        hidden = fronts.getpixel((9 * cw + 5, ch + 5))
        assert backs.getpixel((9 * cw + 5, ch + 5)) == hidden
        assert sum(hidden) < 300  # the dark hidden card
        assert fronts.getpixel((8 * cw + cw // 2, ch + ch // 2)) == (255, 255, 255)  # cell 19: empty
        # Cell 0 is the first module: active side on the fronts, spent side on the backs.
        assert fronts.getpixel((cw // 2, ch // 2)) != backs.getpixel((cw // 2, ch // 2))


def test_outputs_are_byte_identical_for_the_same_inputs() -> None:
    for preset in ("drivethrucards", "tts", "home-a4"):
        again = render_print(classic(), resolve_job(preset))
        assert again.pdf == printed(preset).pdf and again.files == printed(preset).files


# --------------------------------------------------------------------------- overrides


def test_options_override_the_preset() -> None:
    job = resolve_job("drivethrucards", bleed_mm=2.0, color="rgb")
    assert job.opts.bleed_mm == 2.0 and job.opts.color == "rgb" and job.opts.order == "back-front"
    data = render_print(classic(), job).pdf
    assert data is not None
    page = PdfReader(io.BytesIO(data)).pages[0]
    assert box(page, "/MediaBox")[2] == round(2.5 * IN + 4 * MM, 2)
    assert resolve_job("home-letter", paper="a4").opts.paper == "a4"
    assert resolve_job("thegamecrafter", dpi=600).opts.dpi == 600


@pytest.mark.parametrize(("args", "message"), [
    (["--preset", "tts", "--paper", "letter"], "--paper applies to home sheets only"),
    (["--preset", "thegamecrafter", "--color", "cmyk"], "--color cmyk is for PDFs"),
    (["--preset", "nope"], "unknown preset 'nope'"),
    (["--layout", "gutterfold", "--back-offset", "1,1"], "--back-offset shifts the back pages"),
    (["--back-offset", "1;1"], "give X,Y in millimetres"),
])
def test_options_that_make_no_sense_are_refused(tmp_path: Path, args: list[str], message: str) -> None:
    result = run("standard", "-o", str(tmp_path / "x.pdf"), *args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not any(tmp_path.iterdir())


# --------------------------------------------------------------------------- preflight


def test_preflight_catches_a_title_outside_the_safe_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    import rove.pdf.cards as cards

    # The title drawn at 30 pt on one line runs past both sides of the card.
    monkeypatch.setattr(cards, "mission_title_fit", lambda title, measure: TitleFit(30.0, (title,), True))
    files = render_print(classic(), resolve_job("drivethrucards"))
    result = run_preflight(files)
    assert not result.ok
    title = classic().card("c04").mission.title
    assert title == "Cross the Crevasse"
    bad = [p for p in result.problems if p.item == "card-c04-mission"]
    assert {(p.check, p.where) for p in bad} == {("safe zone", "left edge"), ("safe zone", "right edge")}
    assert all(title in p.detail and p.by_mm is not None and p.by_mm > 5 for p in bad)
    # Only mission sides are touched, and only their titles fail.
    assert {p.item for p in result.problems} <= {f"card-{c.id}-mission" for c in classic().cards}
    assert all(p.check == "safe zone" for p in result.problems)
    text = "\n".join(preflight_lines(result))
    assert "card-c04-mission" in text and "left edge" in text and "nothing written" in text


def test_preflight_catches_a_wrong_page_size() -> None:
    data, faces = render_faces_pdf(classic(), CardOptions(card="bridge", bleed_mm=3.175))
    problems, checked = check_faces_pdf(data, faces, "poker", 3.175, 3.175, 300)
    assert checked == 36
    sizes = [p for p in problems if p.check == "page size"]
    assert len(sizes) == 36 and all(p.by_mm == pytest.approx(63.5 - 57.15, abs=0.01) for p in sizes)
    assert any(p.check == "trim box" for p in problems)


def test_preflight_catches_art_that_stops_short_of_the_bleed() -> None:
    data, faces = render_faces_pdf(classic(), CardOptions(bleed_mm=0.0))
    # The same art on a page with room for 3 mm of bleed: the background stops at the cut.
    from pypdf import PdfWriter
    from pypdf.generic import RectangleObject

    reader = PdfReader(io.BytesIO(data))
    writer = PdfWriter()
    for page in reader.pages[:2]:
        page.mediabox = RectangleObject((-3 * MM, -3 * MM, 180 + 3 * MM, 252 + 3 * MM))
        writer.add_page(page)
    buf = io.BytesIO()
    writer.write(buf)
    problems, _ = check_faces_pdf(buf.getvalue(), faces[:2], "poker", 3.0, 3.0, 300)
    assert {p.check for p in problems} >= {"bleed"}


def test_cli_preflight_failure_writes_nothing_and_exits_1(tmp_path: Path) -> None:
    out = tmp_path / "deck.pdf"
    # A 10 mm safe zone: every title (12 units in from the edge) is outside it.
    result = run("standard", "--preset", "drivethrucards", "--safe", "10", "-o", str(out), "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    assert report["ok"] is False and report["preset"] == "drivethrucards"
    assert any(p["check"] == "safe zone" and p["by_mm"] > 0 for p in report["problems"])
    assert not out.exists() and not any(tmp_path.iterdir())
    table = run("standard", "--preset", "drivethrucards", "--safe", "10", "-o", str(out))
    assert table.exit_code == 1 and "safe zone" in table.output and not out.exists()


def test_cli_writes_a_service_preset_after_its_preflight(tmp_path: Path) -> None:
    result = run("classic", "--preset", "thegamecrafter", "--dpi", "72", "-o", str(tmp_path / "tgc"))
    assert result.exit_code == 0, result.output
    assert "preflight thegamecrafter: ok" in result.output
    assert len(list((tmp_path / "tgc").glob("*.png"))) == 36
    home = run("classic", "--preset", "home-letter", "-o", str(tmp_path / "home.pdf"))
    assert home.exit_code == 0 and "preflight" not in home.output  # home: only when asked
    assert (tmp_path / "home.pdf").read_bytes() == printed("home-letter").pdf


# --------------------------------------------------------------------------- stamp


def _text(data: bytes | None, page: int = 0) -> str:
    assert data is not None
    return " ".join(PdfReader(io.BytesIO(data)).pages[page].extract_text().split())


def test_stamp_is_on_for_home_sheets_off_for_services_and_deterministic(tmp_path: Path) -> None:
    short = stamp_text(classic(), None)
    text = stamp_text(classic(), "2026-12-01")
    assert short.startswith("Classic deck · ") and len(short.split(" · ")[1]) == 8
    assert text == short + " · 2026-12-01"
    assert _text(printed("home-a4").pdf).count(short) == 9  # on every face of the sheet
    assert "Classic deck ·" not in _text(printed("drivethrucards").pdf)
    assert "Classic deck ·" not in _text(render_print(classic(), resolve_job("home-a4", stamp=False)).pdf)
    dated = render_print(classic(), resolve_job("drivethrucards", stamp_date="2026-12-01"))
    assert text in _text(dated.pdf)
    assert run_preflight(dated).ok  # the stamp sits in the strip every face keeps free
    a, b = tmp_path / "a.pdf", tmp_path / "b.pdf"
    for path in (a, b):
        result = run("classic", "--stamp-date", "2026-12-01", "-o", str(path), "--preflight")
        assert result.exit_code == 0, result.output
    assert a.read_bytes() == b.read_bytes()
    assert _text(a.read_bytes(), 1).count(text) == 9
    # A different spec gives a different hash.
    other = load_spec("classic")
    from dataclasses import replace

    assert stamp_text(replace(other, name="Other deck"), None).split(" · ")[1] != short.split(" · ")[1]
    refused = run("standard", "--no-stamp", "--stamp-date", "x", "-o", str(tmp_path / "c.pdf"))
    assert refused.exit_code == 2 and "--no-stamp" in refused.output


# --------------------------------------------------------------------------- previews, duplex offset, calibration


def test_png_previews_take_dpi_and_tag_it(tmp_path: Path) -> None:
    result = run("standard", "-o", str(tmp_path / "deck.pdf"), "--png-dir", str(tmp_path / "png"),
                 "--dpi", "200")
    assert result.exit_code == 0, result.output
    with Image.open(tmp_path / "png" / "module-brain-active.png") as im:
        assert im.size == (500, 700)  # 2.5 x 3.5 in at 200 dpi
        assert im.info["dpi"] == pytest.approx((200, 200), abs=0.05)


def _marks_at(page) -> dict[str, tuple[float, float]]:  # type: ignore[no-untyped-def]
    found: dict[str, tuple[float, float]] = {}

    def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        if text.startswith("rove-face:"):
            found[text.removeprefix("rove-face:").strip()] = (tm[4] * cm[0] + cm[4], tm[5] * cm[3] + cm[5])

    page.extract_text(visitor_text=visit)
    return found


def test_back_offset_shifts_the_back_pages_only() -> None:
    plain = PdfReader(io.BytesIO(render_cards_pdf(classic(), CardOptions())))
    moved = PdfReader(io.BytesIO(render_cards_pdf(classic(), CardOptions(back_offset_mm=(1.0, -0.5)))))
    for i, (a, b) in enumerate(zip(plain.pages, moved.pages, strict=True)):
        pa, pb = _marks_at(a), _marks_at(b)
        assert set(pa) == set(pb) and pa
        dx, dy = (1.0 * MM, -0.5 * MM) if i % 2 else (0.0, 0.0)
        for key, (x, y) in pa.items():
            assert pb[key] == pytest.approx((x + dx, y + dy), abs=0.01), key
        trim_a, trim_b = box(a, "/TrimBox"), box(b, "/TrimBox")
        assert trim_b[0] == pytest.approx(trim_a[0] + dx, abs=0.01)
        assert trim_b[1] == pytest.approx(trim_a[1] + dy, abs=0.01)


def test_calibration_sheet_puts_the_scales_behind_the_crosses(tmp_path: Path) -> None:
    from rove.pdf.calibration import targets

    out = tmp_path / "cal.pdf"
    result = run("--calibration", "--paper", "letter", "--back-offset", "1.5,-2", "-o", str(out))
    assert result.exit_code == 0, result.output
    pdf = PdfReader(out)
    assert len(pdf.pages) == 2
    assert pdf.trailer["/Root"]["/ViewerPreferences"]["/PrintScaling"] == "/None"
    assert box(pdf.pages[0], "/MediaBox") == (0, 0, 612, 792)
    zeros: list[tuple[float, float]] = []

    def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        if text.strip() == "0":
            zeros.append((tm[4] + cm[4], tm[5] + cm[5]))

    pdf.pages[1].extract_text(visitor_text=visit)
    # The horizontal scales' zeros sit (centred) under where each front cross lands after a
    # long-edge flip, moved by the offset.
    xs = sorted(round(x, 1) for x, _ in zeros)
    for tx, _ in targets("letter"):
        want = 612 - tx + 1.5 * MM
        assert any(abs(x - want) < 2.0 for x in xs), (want, xs)
    assert "--back-offset 1.5,-2" in " ".join(pdf.pages[0].extract_text().split())
    refused = run("--calibration", "--preset", "tts", "-o", str(tmp_path / "x.pdf"))
    assert refused.exit_code == 2 and "print service" in refused.output


@pytest.mark.parametrize(("paper", "layout", "card", "bleed"), [
    ("a4", "gutterfold", "poker", 3.0), ("a4", "gutterfold", "mini", 0.0), ("a4", "duplex", "mini", 2.0),
    ("letter", "duplex", "poker", 0.0),
])
def test_tight_margins_still_say_print_at_100_percent(paper: str, layout: str, card: str, bleed: float) -> None:
    """Margins 5 mm from the edge can be too narrow for the whole note: the short one is printed."""
    data = render_cards_pdf(classic(), CardOptions(paper, layout, bleed, card))
    first = " ".join(PdfReader(io.BytesIO(data)).pages[0].extract_text().split())
    assert "100% scale" in first and "fit to page" in first


def test_a_folder_with_another_decks_cards_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "tgc"
    out.mkdir()
    (out / "module-old-active.png").write_bytes(b"old")
    (out / "notes.txt").write_text("mine")
    result = run("standard", "--preset", "thegamecrafter", "--dpi", "72", "-o", str(out))
    assert result.exit_code == 2 and "module-old-active.png" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["module-old-active.png", "notes.txt"]
    (out / "module-old-active.png").unlink()
    again = run("standard", "--preset", "thegamecrafter", "--dpi", "72", "-o", str(out))  # other files may stay
    assert again.exit_code == 0, again.output
    assert len(list(out.glob("*.png"))) == 36 and (out / "notes.txt").read_text() == "mine"
    rerun = run("standard", "--preset", "thegamecrafter", "--dpi", "72", "-o", str(out))  # its own files: replaced
    assert rerun.exit_code == 0, rerun.output


def test_cards_output_is_the_path_given_or_the_presets_default() -> None:
    from rove.pdf.printing import cards_output

    assert cards_output(None, None) == Path("output/cards.pdf")
    assert cards_output(None, "home-a4") == Path("output/cards-home-a4.pdf")
    assert cards_output(None, "drivethrucards") == Path("output/cards-drivethrucards.pdf")
    assert cards_output(None, "tts") == Path("output/cards-tts")
    assert cards_output(None, "tts", calibration=True) == Path("output/calibration.pdf")
    assert cards_output("out/deck/", "thegamecrafter") == Path("out/deck")  # a folder preset
    for preset, calibration in ((None, False), ("drivethrucards", False), ("tts", True)):
        with pytest.raises(ValueError, match="'out/deck/' names a folder, not a file"):
            cards_output("out/deck/", preset, calibration=calibration)


def test_the_destinations_are_refused_before_anything_is_made(tmp_path: Path) -> None:
    """The library refuses what the command would: previews of this deck already in
    --png-dir (unless forced), and card files of another deck in the output folder."""
    from rove.errors import InputError
    from rove.pdf.printing import check_destinations, check_stale_files

    png = tmp_path / "png"
    png.mkdir()
    names = sorted(f"{face.key}.png" for pair in card_faces(classic()) for face in pair)
    for name in names[:5]:
        (png / name).write_bytes(b"mine")
    with pytest.raises(InputError, match=r"already holds 5 previews of this deck \(.*, .*, .* and 2 more\)"):
        check_destinations(classic(), tmp_path / "c.pdf", "sheets", png, force=False)
    check_destinations(classic(), tmp_path / "c.pdf", "sheets", png, force=True)
    check_destinations(classic(), tmp_path / "c.pdf", "sheets", None, force=False)
    with pytest.raises(InputError, match="names a file, not a folder"):
        check_destinations(classic(), png / names[0], "png", None, force=False)
    files = printed("thegamecrafter")
    check_stale_files(png, printed("home-a4"))  # one PDF: the folder is not written into
    check_stale_files(tmp_path / "new", files)
    (tmp_path / "tgc").mkdir()
    (tmp_path / "tgc" / "notes.txt").write_text("mine")
    check_stale_files(tmp_path / "tgc", files)
    (tmp_path / "tgc" / "module-old-active.png").write_bytes(b"old")
    with pytest.raises(InputError, match=r"-o holds files this deck does not have \(module-old-active.png\)"):
        check_stale_files(tmp_path / "tgc", files)


def test_preflight_catches_a_font_that_is_not_embedded() -> None:
    from reportlab.pdfgen.canvas import Canvas

    from rove.pdf.cards import Rect, set_boxes

    w, h, b = 180.0, 252.0, 9.0
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(w + 2 * b, h + 2 * b), invariant=1)
    set_boxes(c, Rect(b, b, w, h), Rect(0, 0, w + 2 * b, h + 2 * b))
    c.setFillColorRGB(0.9, 0.9, 0.8)
    c.rect(0, 0, w + 2 * b, h + 2 * b, stroke=0, fill=1)
    c.setFillColorRGB(0, 0, 0)
    c.setFont("Helvetica", 12)  # one of the 14 standard fonts: never embedded
    c.drawString(40, 120, "Standard font")
    c.showPage()
    c.save()
    faces = card_faces(classic())[0][:1]
    problems, _ = check_faces_pdf(buf.getvalue(), faces, "poker", 9 / MM, 9 / MM, 300)
    assert [(p.check, p.detail) for p in problems] == [("fonts", "font of 'Standard font' is not embedded")]


def test_tts_decks_larger_than_a_sheet_take_several(monkeypatch: pytest.MonkeyPatch) -> None:
    import rove.pdf.printing as printing

    monkeypatch.setattr(printing, "TTS_MAX_COLS", 3)
    monkeypatch.setattr(printing, "TTS_MAX_ROWS", 2)  # 5 cards and the hidden one a sheet
    out = render_print(classic(), resolve_job("tts"))
    manifest = json.loads(out.files["deck.json"])
    assert [(s["cols"], s["rows"], s["cards"]) for s in manifest["sheets"]] == \
        [(3, 2, 5), (3, 2, 5), (3, 2, 5), (3, 2, 3)]
    assert sorted(out.files) == sorted([*(f"deck-{k}-{side}.png" for k in range(1, 5)
                                          for side in ("fronts", "backs")), "deck.json"])
    keys = [k for s in out.tts_sheets for k in s["fronts_keys"]]
    assert keys == [front.key for front, _ in card_faces(classic())]
    assert run_preflight(out).ok


def test_preflight_sees_ink_within_5_mm_of_the_edge() -> None:
    """Backs moved 3 mm up and right bring their crop marks within 2 mm of the top edge: the
    rendered page shows it; the fronts stay clear."""
    result = run_preflight(render_print(classic(), resolve_job("home-a4", back_offset_mm=(3.0, 3.0))))
    edges = [p for p in result.problems if p.check == "edge"]
    assert [p.item for p in edges] == ["page 2", "page 4"]
    assert all(p.by_mm is not None and 2.5 <= p.by_mm <= 3.6 for p in edges), edges


def test_preflight_catches_rgb_in_a_cmyk_file() -> None:
    from dataclasses import replace

    rgb = render_print(classic(), resolve_job("drivethrucards", color="rgb"))
    # The same RGB pages checked as if CMYK had been asked for.
    claimed = replace(rgb, job=replace(rgb.job, opts=replace(rgb.job.opts, color="cmyk")))
    colour = [p for p in run_preflight(claimed).problems if p.check == "colour"]
    assert len(colour) == 36 and "RGB fill" in colour[0].detail
    assert run_preflight(printed("drivethrucards")).ok
    sheets = render_print(classic(), resolve_job("home-a4", color="cmyk"))
    assert run_preflight(sheets).ok


def test_pngs_are_identical_across_processes() -> None:
    import hashlib
    import os
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import hashlib
        from rove.pdf.printing import render_print, resolve_job
        from rove.spec import load_spec
        files = render_print(load_spec("classic"), resolve_job("tts")).files
        print(hashlib.sha256(b"".join(files[k] for k in sorted(files))).hexdigest())
    """)
    env = {**os.environ, "PYTHONHASHSEED": "4321"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    files = printed("tts").files
    assert out.stdout.strip() == hashlib.sha256(b"".join(files[k] for k in sorted(files))).hexdigest()
