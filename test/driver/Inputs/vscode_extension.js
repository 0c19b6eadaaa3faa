// Loads editors/vscode/extension.js under node with stand-ins for the
// `vscode` API and `vscode-languageclient/node` (not installed here), calls
// activate() as VS Code does when a C++ file opens, and prints what the user
// would see, one line each: the messages shown, the commands registered, the
// servers started (command and arguments), and how activation ended.
//   node vscode_extension.js EXTENSION.js [SETTING_PATH]
const Module = require('module');

const shown = [];
const commands = [];
const servers = [];
const stubs = {
  vscode: {
    window: {
      showWarningMessage: (m) => shown.push('warning: ' + m),
      showErrorMessage: (m) => shown.push('error: ' + m),
      showInformationMessage: (m) => shown.push('info: ' + m),
    },
    workspace: {
      getConfiguration: () => ({ get: (key) => (key === 'path' ? process.argv[3] || '' : undefined) }),
      onDidChangeConfiguration: () => ({ dispose() {} }),
    },
    commands: { registerCommand: (name) => { commands.push(name); return { dispose() {} }; } },
  },
  'vscode-languageclient/node': {
    // As vscode-languageclient does: start() spawns the server and fails
    // when it cannot.
    LanguageClient: class {
      constructor(id, name, server) { this.server = server; }
      start() {
        return new Promise((resolve, reject) => {
          const child = require('child_process').spawn(this.server.command, ['--version']);
          child.on('error', (e) => reject(new Error(`Launching server using command ${this.server.command} failed. ${e}`)));
          child.on('spawn', () => { servers.push([this.server.command, ...this.server.args].join(' ')); resolve(); });
        });
      }
      stop() { return Promise.resolve(); }
    },
  },
};
const load = Module._load;
Module._load = function (request, ...rest) {
  return request in stubs ? stubs[request] : load.call(this, request, ...rest);
};

const extension = require(require('path').resolve(process.argv[2]));
extension.activate({ subscriptions: [] }).then(
  () => 'activated',
  (e) => 'activation failed: ' + e.message,
).then((how) => {
  for (const m of shown) console.log(m);
  console.log('commands: ' + commands.join(', '));
  console.log('servers: ' + servers.length);
  for (const s of servers) console.log('server: ' + s);
  console.log(how);
});
