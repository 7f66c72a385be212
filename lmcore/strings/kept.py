"""Strings of what is kept for a browser across sessions and replicas (its upload, its jobs)."""

STRINGS = {
    "sidebar.upload_restored": (
        "Your upload {name} is back (kept for this browser).",
        "你上传的 {name} 已恢复（为此浏览器保存）。",
    ),
}
