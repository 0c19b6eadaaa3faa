// libtorch-tidy for VS Code: starts `libtorch-tidy lsp` for C and C++ files,
// beside clangd (each server publishes its own diagnostics).
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function settings() {
  const c = vscode.workspace.getConfiguration('libtorch-tidy');
  const options = {};
  for (const key of ['buildDirectory', 'plugin', 'clangTidy', 'checks', 'jobs']) {
    const v = c.get(key);
    if (v !== '' && v !== undefined) options[key] = v;
  }
  return { command: c.get('path') || 'libtorch-tidy', options };
}

// Whether the command can be started: a path, or a name found on PATH.
function executable(command) {
  const candidates = command.includes(path.sep) ? [command]
    : (process.env.PATH || '').split(path.delimiter).filter((d) => d).map((d) => path.join(d, command));
  return candidates.some((c) => {
    try {
      fs.accessSync(c, fs.constants.X_OK);
      return fs.statSync(c).isFile();
    } catch (e) {
      return false;
    }
  });
}

// Without the command the extension says so once and stays idle: clangd and
// the editor work as before, and the commands below answer nothing.
async function start(context) {
  const { command, options } = settings();
  client = undefined;
  if (!executable(command)) {
    vscode.window.showWarningMessage(`libtorch-tidy: '${command}' not found (setting libtorch-tidy.path); ` +
                                     'no torch- findings until it is installed.');
    return;
  }
  const started = new LanguageClient(
    'libtorch-tidy', 'libtorch-tidy',
    { command, args: ['lsp'] },
    {
      documentSelector: [
        { scheme: 'file', language: 'cpp' },
        { scheme: 'file', language: 'c' },
        { scheme: 'file', language: 'cuda-cpp' },
      ],
      initializationOptions: options,
    });
  try {
    await started.start();
    client = started;
  } catch (e) {
    vscode.window.showWarningMessage(`libtorch-tidy: the server did not start: ${e.message}`);
  }
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('libtorch-tidy.analyzeFile', () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || !client) return;
      return client.sendRequest('workspace/executeCommand', {
        command: 'libtorch-tidy.analyze',
        arguments: [editor.document.uri.toString()],
      });
    }),
    vscode.commands.registerCommand('libtorch-tidy.restart', async () => {
      if (client) await client.stop();
      await start(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('libtorch-tidy')) {
        if (client) await client.stop();
        await start(context);
      }
    }));
  await start(context);
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
