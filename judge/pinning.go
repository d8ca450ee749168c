package judge

import (
	"context"
	"fmt"
	"time"

	"github.com/loomi-lmp/lmpkit/lmp"
)

// pinning asks the app to pair again from a wss:// pairing JSON whose fp
// pins one certificate, and presents another first: the app must send
// nothing to it (C-2). Then it presents the pinned one: the app must pair.
func (j *judgeRun) pinning(ctx context.Context) error {
	c := j.conn
	j.ep.setWrongCert(true)
	if err := j.mint(j.ep.wssURL, j.ep.goodFP); err != nil {
		return err
	}
	if err := j.act(ctx, c, Action{Action: ActionPair}, "pair again",
		"Forget this server and pair again from the new QR code (a wss:// one). The first attempt meets a certificate the code does not pin: the app must refuse it. Then try pairing again with the same code."); err != nil {
		return err
	}
	err := j.judge(specPinRefused, func() error {
		deadline := time.NewTimer(j.t.ActionTimeout)
		defer deadline.Stop()
		for {
			hellos, requests, refused := j.ep.tlsCounts()
			switch {
			case requests > 0:
				return fmt.Errorf("expected no request to a server whose certificate does not match the QR's fp, actual: the app sent an HTTP request (its WebSocket upgrade) after the TLS handshake")
			case hellos > 0 && refused > 0:
				return nil
			}
			select {
			case <-j.ep.tlsEvent:
			case <-deadline.C:
				if hellos > 0 {
					return fmt.Errorf("expected the app to abort the TLS connection to a certificate the QR does not pin, actual: it held it open for %v", j.t.ActionTimeout)
				}
				return didNotAct("no connection to the wss:// URL within " + j.t.ActionTimeout.String())
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
	j.ep.setWrongCert(false)
	if isSkip(err) {
		j.skipRest(err, specPinAccepted)
		return nil
	}
	j.step("now presenting the certificate the QR pins: pair again")
	var c2 *appConn
	perr := j.judge(specPinAccepted, func() error {
		var h lmp.Hello
		var err error
		c2, h, err = j.accept(ctx, j.t.ActionTimeout)
		if err != nil {
			return didNotAct("the app did not pair again within " + j.t.ActionTimeout.String())
		}
		if !c2.tls {
			return fmt.Errorf("expected the app to connect to the QR's url %s, actual: it came to the plaintext listener", j.ep.wssURL)
		}
		if h.Token != j.token {
			return fmt.Errorf("expected hello with the new QR's token, actual: a hello whose token is %s", describeToken(h.Token))
		}
		return nil
	})
	if perr != nil || c2 == nil {
		return nil
	}
	j.deviceID, j.cred = "dev_"+newSecret()[:12], newSecret()
	j.log.secret(j.cred)
	j.seq.Store(0)
	j.events = map[int64]lmp.Frame{}
	j.conn = c2
	return j.helloOK(ctx, c2, &j.cred, lmp.Version, false)
}

// version asks the app to reconnect and answers with protocol_version 2:
// the app must say so and stop, with no request and no reconnect (C-9).
// It ends the app's session: it is the last scenario.
func (j *judgeRun) version(ctx context.Context) error {
	c := j.conn
	if err := j.act(ctx, c, Action{Action: ActionReconnect}, "reconnect",
		"Reconnect (turn the network off and on). The server will then claim protocol version 2: the app should say it does not support it and stop."); err != nil {
		return err
	}
	return j.judge(specVersion, func() error {
		c2, _, err := j.reconnect(ctx, j.t.ActionTimeout)
		if err != nil {
			return didNotAct("the app did not reconnect within " + j.t.ActionTimeout.String())
		}
		if err := j.helloOK(ctx, c2, nil, 2, false); err != nil {
			return err
		}
		j.step("answered with protocol_version 2; watching the app for %v", j.t.Quiet)
		quiet := time.NewTimer(j.t.Quiet)
		defer quiet.Stop()
		for {
			select {
			case f := <-c2.frames:
				return fmt.Errorf("expected no request after protocol_version 2, actual: %s", f.typ)
			case in := <-j.ep.conns:
				_ = in.ws.CloseNow()
				return fmt.Errorf("expected the app to stop after protocol_version 2, actual: it connected again")
			case <-quiet.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
}
