// libtorch-tidy for VS Code: starts `libtorch-tidy lsp` for C and C++ files,
// beside clangd (each server publishes its own diagnostics).
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

async function start(context) {
  const { command, options } = settings();
  client = new LanguageClient(
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
  await client.start();
}

async function activate(context) {
  await start(context);
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
      if (e.affectsConfiguration('libtorch-tidy') && client) {
        await client.stop();
        await start(context);
      }
    }));
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
