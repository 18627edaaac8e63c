import sys
from pathlib import Path

import pytest
import skills_ref

from mldebug_mcp.content import markdown
from mldebug_mcp.content.audit.frontmatter import SKILLS_REF_MISSING
from mldebug_mcp.content.skill_install import install_skill, skill_name, validate_skill
from mldebug_mcp.errors import UsageError


def test_installed_skill_is_valid_and_self_contained(tmp_path):
    folder, status = install_skill(tmp_path)
    assert status == "installed"
    assert folder == tmp_path / "ml-debug"
    assert skills_ref.validate(folder) == []
    assert (folder / "SKILL.md").is_file() and (folder / "PLAYBOOK.md").is_file()
    assert (folder / "references" / "diagnostics.md").is_file()
    assert (folder / "evidence" / "sources.yaml").is_file()
    for doc in folder.rglob("*.md"):
        text = doc.read_text(encoding="utf-8")
        for link in markdown.links(text):
            if link.target.startswith(("http://", "https://", "mailto:")):
                continue
            path_part, _, anchor = link.target.partition("#")
            target = (doc.parent / path_part).resolve() if path_part else doc
            assert target.exists(), f"{doc.relative_to(folder)}:{link.line}: {link.target}"
            assert target.is_relative_to(folder.resolve()), link.target
            if anchor:
                assert anchor in markdown.anchors(target.read_text(encoding="utf-8")), link.target
    assert "../refs/" not in (folder / "SKILL.md").read_text(encoding="utf-8")


def test_reinstall_same_content_is_a_no_op_and_different_content_needs_force(tmp_path):
    folder, _ = install_skill(tmp_path)
    assert install_skill(tmp_path) == (folder, "unchanged")
    (folder / "SKILL.md").write_text("edited by hand", encoding="utf-8")
    with pytest.raises(UsageError, match="already exists with different content; pass --force"):
        install_skill(tmp_path)
    assert (folder / "SKILL.md").read_text(encoding="utf-8") == "edited by hand"
    assert install_skill(tmp_path, force=True) == (folder, "replaced")
    assert (folder / "SKILL.md").read_text(encoding="utf-8").startswith("---\nname: ml-debug")


def test_cli_install_skill(run_cli, tmp_path):
    result = run_cli("install-skill", "--dest", str(tmp_path))
    assert result.code == 0
    assert f"skill installed: {tmp_path / 'ml-debug'}" in result.out
    (tmp_path / "ml-debug" / "extra.txt").write_text("x", encoding="utf-8")
    refused = run_cli("install-skill", "--dest", str(tmp_path))
    assert refused.code == 2 and "--force" in refused.err
    assert run_cli("install-skill", "--dest", str(tmp_path), "--force").code == 0
    assert not (tmp_path / "ml-debug" / "extra.txt").exists()


def test_destination_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "ml-debug").write_text("not a folder", encoding="utf-8")
    with pytest.raises(UsageError, match="is not a folder"):
        install_skill(tmp_path)


def test_installed_folder_passes_the_audit_link_rules(tmp_path):
    folder, _ = install_skill(tmp_path)
    names = {p.name for p in (folder / "references").iterdir()}
    assert names == {p.name for p in Path(__file__).parents[2].joinpath("refs").glob("*.md")}


def test_validation_is_the_reference_validators(tmp_path):
    folder, _ = install_skill(tmp_path)
    assert validate_skill(folder) == []
    renamed = folder.rename(tmp_path / "other-name")
    assert validate_skill(renamed) == ["Directory name 'other-name' must match skill name 'ml-debug'"]


def test_without_skills_ref_install_says_so_instead_of_passing(tmp_path, monkeypatch):
    folder, _ = install_skill(tmp_path)
    for name in ("skills_ref", "skills_ref.errors", "skills_ref.parser", "skills_ref.validator"):
        monkeypatch.setitem(sys.modules, name, None)  # makes `import skills_ref...` raise ImportError
    assert validate_skill(folder) == [SKILLS_REF_MISSING]
    with pytest.raises(UsageError, match="skills-ref is not installed"):
        skill_name()
