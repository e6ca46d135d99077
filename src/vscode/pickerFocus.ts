/**
 * Options for every quick pick and input box a Hotpath command opens: they stay open when focus moves.
 *
 * They open just as the command palette closes and VS Code hands focus back to the active editor. With a
 * webview active (the flamegraph), that focus arrives a moment late and closes a picker that has already
 * appeared: CI saw the runtime picker vanish under a click, and later the saved-profiles picker go inert
 * and hidden before it could be typed into. Escape still cancels.
 */
export const STAY = { ignoreFocusOut: true } as const;
