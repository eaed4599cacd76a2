// The challenge page's script (GuardPages fills in the three quoted placeholders): fetches an
// ALTCHA challenge, solves it in a Web Worker made from a Blob, stores the payload in the room's
// cookie and reloads. The worker hashes in plain JavaScript rather than crypto.subtle: one
// asynchronous digest per try costs tens of microseconds, a synchronous SHA-256 of a one-block
// message about one, and it needs no secure context. Three tries per tab (sessionStorage), so a
// room whose instances do not share a ledger cannot loop.
(function () {
  var url = "@URL@", cookie = "@COOKIE@", attrs = "@ATTRS@";
  var status = document.getElementById("pow");
  function fail(text) {
    status.textContent = text;
    var again = document.getElementById("again");
    again.hidden = false;
    again.onclick = function () {
      try { sessionStorage.removeItem("room_altcha_tries"); } catch (e) {}
    };
  }
  var tries = 0;
  try {
    tries = +(sessionStorage.getItem("room_altcha_tries") || 0);
    sessionStorage.setItem("room_altcha_tries", tries + 1);
  } catch (e) {}
  if (tries >= 3) {
    fail("Your browser's answers were not accepted. Please try again in a few minutes.");
    return;
  }
  if (!window.Worker || !window.fetch || !window.Blob || !window.URL) {
    fail("This browser cannot solve the puzzle: please use a current browser.");
    return;
  }
  function solver() {
    var K = [
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
    ];
    var W = new Int32Array(64), H = new Int32Array(8);
    // SHA-256 of m[0..len) into H; m has room for the padding.
    function sha256(m, len) {
      var total = (len + 9 + 63) & ~63, i, t;
      m[len] = 0x80;
      for (i = len + 1; i < total; i++) m[i] = 0;
      var bits = len * 8;
      m[total - 4] = bits >>> 24; m[total - 3] = (bits >>> 16) & 255;
      m[total - 2] = (bits >>> 8) & 255; m[total - 1] = bits & 255;
      var h0 = 0x6a09e667, h1 = 0xbb67ae85 | 0, h2 = 0x3c6ef372, h3 = 0xa54ff53a | 0,
          h4 = 0x510e527f, h5 = 0x9b05688c | 0, h6 = 0x1f83d9ab, h7 = 0x5be0cd19;
      for (var o = 0; o < total; o += 64) {
        for (t = 0; t < 16; t++) {
          i = o + t * 4;
          W[t] = (m[i] << 24) | (m[i + 1] << 16) | (m[i + 2] << 8) | m[i + 3];
        }
        for (t = 16; t < 64; t++) {
          var x = W[t - 15], y = W[t - 2];
          var s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
          var s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
          W[t] = (W[t - 16] + s0 + W[t - 7] + s1) | 0;
        }
        var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
        for (t = 0; t < 64; t++) {
          var S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
          var t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[t] + W[t]) | 0;
          var S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
          var t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
          h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        }
        h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
        h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + h) | 0;
      }
      H[0] = h0; H[1] = h1; H[2] = h2; H[3] = h3; H[4] = h4; H[5] = h5; H[6] = h6; H[7] = h7;
    }
    self.sha256hex = function (s) { // for tests: the hex digest of an ASCII string
      var m = new Uint8Array(s.length + 72);
      for (var i = 0; i < s.length; i++) m[i] = s.charCodeAt(i) & 255;
      sha256(m, s.length);
      var out = "";
      for (i = 0; i < 8; i++) out += ("0000000" + (H[i] >>> 0).toString(16)).slice(-8);
      return out;
    };
    self.onmessage = function (ev) {
      var c = ev.data, salt = new TextEncoder().encode(c.salt), want = new Int32Array(8), i;
      for (i = 0; i < 8; i++) want[i] = parseInt(c.challenge.substr(i * 8, 8), 16) | 0;
      var m = new Uint8Array(salt.length + 100);
      m.set(salt);
      for (var n = 0; n <= c.maxnumber; n++) {
        var digits = "" + n, len = salt.length;
        for (i = 0; i < digits.length; i++) m[len++] = digits.charCodeAt(i);
        sha256(m, len);
        if (H[0] === want[0] && H[1] === want[1] && H[2] === want[2] && H[3] === want[3] &&
            H[4] === want[4] && H[5] === want[5] && H[6] === want[6] && H[7] === want[7]) {
          self.postMessage(n);
          return;
        }
      }
      self.postMessage(-1);
    };
  }
  var source = "(" + solver.toString() + ")();";
  fetch(url, {headers: {Accept: "application/json"}, credentials: "same-origin", cache: "no-store"})
    .then(function (r) {
      if (!r.ok) throw new Error("status " + r.status);
      return r.json();
    })
    .then(function (c) {
      var started = Date.now();
      var w = new Worker(URL.createObjectURL(new Blob([source], {type: "text/javascript"})));
      w.onerror = function () { fail("The puzzle could not be solved here. Please try again."); };
      w.onmessage = function (e) {
        w.terminate();
        if (e.data < 0) {
          fail("The puzzle had no answer. Please try again.");
          return;
        }
        var payload = JSON.stringify({algorithm: c.algorithm, challenge: c.challenge,
          number: e.data, salt: c.salt, signature: c.signature, took: Date.now() - started});
        var b64 = btoa(payload).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
        document.cookie = cookie + "=" + b64 + attrs;
        location.reload();
      };
      w.postMessage(c);
    })
    .catch(function () { fail("The puzzle could not be fetched. Please try again."); });
})();
