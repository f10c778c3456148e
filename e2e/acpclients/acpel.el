;;; acpel.el --- drives acp.el (a real ACP client library) against agentls  -*- lexical-binding: t; no-byte-compile: t -*-
;; Run with: emacs --batch -Q -L ACP_EL_DIR -l acpel.el
;; acp.el (xenodium/acp.el, fetched at a pinned commit) is the ACP client
;; agent-shell is built on.  This plays agent-shell's part: initialize,
;; session/new, session/prompt, the answer's session/update chunks, the
;; client's fs methods over the workspace, and a permission question
;; answered "allow once".  Findings go to $RESULT, one per line.
;; Environment: AGENTLS_CMD, WORKSPACE, RESULT.

(require 'acp)
(require 'map)
(require 'subr-x)

(defvar acpel-lines nil)
(defun acpel-say (fmt &rest args)
  (push (apply #'format fmt args) acpel-lines)
  (with-temp-file (getenv "RESULT")
    (insert (string-join (reverse acpel-lines) "\n") "\n")))

(defun acpel-wait (pred what)
  "Wait up to 60 s for PRED; fail naming WHAT."
  (let ((deadline (+ (float-time) 60)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred)
      (acpel-say "timeout waiting for %s" what)
      (kill-emacs 2))))

(let* ((root (getenv "WORKSPACE"))
       (client (acp-make-client :command (getenv "AGENTLS_CMD")))
       (text "")
       (tools nil)
       (asked 0)
       (session nil)
       (stop nil)
       (failed nil))
  (acp-subscribe-to-errors
   :client client
   :on-error (lambda (err) (acpel-say "error: %S" err)))
  (acp-subscribe-to-notifications
   :client client
   :on-notification
   (lambda (n)
     (let-alist n
       (when (equal .method "session/update")
         (let-alist .params.update
           (pcase .sessionUpdate
             ("agent_message_chunk" (setq text (concat text (or .content.text ""))))
             ("tool_call" (push (format "%s:%s" .kind .toolCallId) tools))))))))
  (acp-subscribe-to-requests
   :client client
   :on-request
   (lambda (r)
     (let-alist r
       (pcase .method
         ("fs/read_text_file"
          (acpel-say "read %s" (file-relative-name .params.path root))
          (acp-send-response
           :client client
           :response (acp-make-fs-read-text-file-response
                      :request-id .id
                      :content (with-temp-buffer
                                 (insert-file-contents .params.path)
                                 (buffer-string)))))
         ("fs/write_text_file"
          (acpel-say "write %s" (file-relative-name .params.path root))
          (with-temp-file .params.path (insert .params.content))
          (acp-send-response
           :client client
           :response (acp-make-fs-write-text-file-response :request-id .id)))
         ("session/request_permission"
          (setq asked (1+ asked))
          (let ((opt (seq-find (lambda (o) (equal (map-elt o 'kind) "allow_once"))
                               .params.options)))
            (acpel-say "asked: %s; options %s" .params.toolCall.title
                       (mapconcat (lambda (o) (map-elt o 'kind)) .params.options ","))
            (acp-send-response
             :client client
             :response (acp-make-session-request-permission-response
                        :request-id .id :option-id (map-elt opt 'optionId)))))
         (_ (acpel-say "unexpected request %s" .method))))))
  (let ((init (acp-send-request
               :client client :sync t
               :request (acp-make-initialize-request
                         :protocol-version 1
                         :client-info '((name . "acp.el test") (version . "0"))
                         :read-text-file-capability t
                         :write-text-file-capability t))))
    (acpel-say "initialized: protocol %s, agent %s" (map-elt init 'protocolVersion)
               (map-nested-elt init '(agentInfo name))))
  (let ((new (acp-send-request
              :client client :sync t
              :request (acp-make-session-new-request :cwd root))))
    (setq session (map-elt new 'sessionId))
    (acpel-say "session %s" session))
  (acp-send-request
   :client client
   :request (acp-make-session-prompt-request
             :session-id session
             :prompt '(((type . "text") (text . "Replace hello with goodbye in hello.txt, then record that it ran"))))
   :on-success (lambda (res) (setq stop (or (map-elt res 'stopReason) "none")))
   :on-failure (lambda (err) (setq failed err stop "failed")))
  (acpel-wait (lambda () stop) "the prompt's end")
  (when failed (acpel-say "prompt failed: %S" failed))
  (acpel-say "tools %s" (string-join (reverse tools) " "))
  (acpel-say "stop %s; asked %d" stop asked)
  (acpel-say "text: %s" (replace-regexp-in-string "\n" " " text))
  (acp-shutdown :client client)
  (kill-emacs 0))
