// The four tools as the model reads them on real Python, Go, Rust, Java, C, Ruby and PHP code:
// each case is what a task on a real corpus showed (CPython's library, Go's, JDK java.base, 14
// Rust crates, Ruby's library, zlib's and X11's C, the App Engine PHP SDK).
import { describe, expect, it } from 'vitest';
import { run } from './codeindex-helpers.js';

describe('code_outline', () => {
  it('Go: a method is named by its receiver type where it stands, not indented under whatever came before it', async () => {
    const [outline] = await run({
      'net/http/server.go': [
        'package http',
        '',
        '// A Server defines parameters for running an HTTP server.',
        'type Server struct {',
        '\tAddr string',
        '}',
        '',
        'var ErrServerClosed = errors.New("http: Server closed")',
        '',
        'func (srv *Server) Serve(l net.Listener) error {',
        '\treturn nil',
        '}',
        '',
        'type Handler interface {',
        '\tServeHTTP(ResponseWriter, *Request)',
        '}',
        '',
      ].join('\n'),
    }, [['code_outline', { path: 'net/http/server.go' }]]);
    expect(outline).toBe([
      'net/http/server.go (16 lines)',
      '4 struct Server',
      '8 var ErrServerClosed = errors.New("http: Server closed")',
      '10 Server.Serve(l net.Listener) error',
      '14 interface Handler',
      '  15 ServeHTTP(ResponseWriter, *Request)',
    ].join('\n'));
  });

  it("Ruby: a module holds its methods and classes; its methods after a nested class are the module's", async () => {
    const [outline] = await run({
      'fileutils.rb': [
        'module FileUtils',
        '  def mkdir_p(list)',
        '  end',
        '',
        '  class Entry_',
        '    def path',
        '    end',
        '  end',
        '',
        '  def fu_list(arg)',
        '  end',
        'end',
        '',
      ].join('\n'),
    }, [['code_outline', { path: 'fileutils.rb' }]]);
    expect(outline).toBe([
      'fileutils.rb (12 lines)',
      '1 module FileUtils',
      '  2 mkdir_p(list)',
      '  5 class Entry_',
      '    6 path',
      '  10 fu_list(arg)',
    ].join('\n'));
  });
});
