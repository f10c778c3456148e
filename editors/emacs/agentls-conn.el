;;; agentls-conn.el --- agentls's own JSON-RPC connection, beside Eglot  -*- lexical-binding: t; -*-

;; Version: 0.2
;; Package-Requires: ((emacs "28.1"))
;; Keywords: tools, languages

;;; Commentary:

;; Eglot gives a buffer one server.  If agentls were that server, a Go
;; buffer would lose gopls.  So agentls.el talks to `agentls serve' over a
;; connection of its own, made with Emacs's `jsonrpc' library, and leaves
;; Eglot (and gopls, pyright, ...) alone.  This file is that connection:
;;
;;  - `agentls-connect' starts the server for a workspace root and
;;    initializes it; `agentls-managed-mode' sends the buffers under the
;;    root to it (didOpen / full-text didChange / didSave / didClose);
;;  - the server's requests: workspace/applyEdit (edits to open buffers
;;    stay unsaved; files with no buffer are edited and saved, as VS Code
;;    does), window/workDoneProgress/create, workspace/configuration,
;;    window/showDocument;
;;  - its notifications: diagnostics (shown through Flymake), agentls/event
;;    and $/progress (handed to agentls.el), showMessage;
;;  - `agentls-code-actions': the code actions of the current line.
;;
;; Emacs 28's jsonrpc.el (1.0.14) lacks nothing this needs.  One quirk:
;; after the reply that ends a synchronous `jsonrpc-request' it leaves the
;; rest of that read unparsed (see `agentls--drain' in agentls.el).

;; Over 400 lines: one LSP client connection (sync, edits, diagnostics,
;; code actions) reads best in one place.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'jsonrpc)
(require 'flymake)
(require 'url-util)
(require 'agentls-fetch)

(defvar agentls-program)
(defvar agentls-initialization-options)
(declare-function agentls--on-event "agentls")
(declare-function agentls--on-progress "agentls")
(declare-function agentls-review-show-document "agentls")
(declare-function agentls--asked "agentls")
(declare-function agentls--answered "agentls")

(defclass agentls-connection (jsonrpc-process-connection)
  ((root :initarg :root :accessor agentls-connection-root)
   (server-info :initform nil :accessor agentls-connection-server-info
                :documentation "The initialize answer's serverInfo: :name, :version.")
   (diagnostics :initform (make-hash-table :test #'equal)
                :accessor agentls-connection-diagnostics
                :documentation "URI -> the last published diagnostics (a list of plists)."))
  :documentation "agentls's own connection to `agentls serve'.")

(defvar agentls--connections nil
  "Alist of (ROOT . CONNECTION), one per workspace root.")

(defcustom agentls-save-unopened t
  "Non-nil: save files the agent edited that no buffer visited.
Buffers the user has open stay unsaved."
  :type 'boolean :group 'agentls)

(defcustom agentls-root-markers '(".agentls.json" ".git" "go.mod" "package.json" "Makefile")
  "Files whose directory is a workspace root (the first one upward)."
  :type '(repeat string) :group 'agentls)

;;; Paths, URIs and positions

(defun agentls--path-to-uri (path)
  (concat "file://" (url-hexify-string (expand-file-name path) url-path-allowed-chars)))

(defun agentls--uri-to-path (uri)
  (if (string-prefix-p "file://" uri)
      (decode-coding-string (url-unhex-string (substring uri 7)) 'utf-8)
    uri))

(defun agentls--find-root (path)
  (or (cl-some (lambda (m) (locate-dominating-file path m)) agentls-root-markers)
      (file-name-directory (expand-file-name path))))

(defun agentls--lsp-to-point (pos)
  "The buffer position of LSP position POS (UTF-16 columns)."
  (save-excursion
    (goto-char (point-min))
    (forward-line (plist-get pos :line))
    (let ((col (plist-get pos :character))
          (eol (line-end-position)))
      (while (and (> col 0) (< (point) eol))
        (setq col (- col (if (> (char-after) #xFFFF) 2 1)))
        (forward-char 1))
      (point))))

(defun agentls--point-to-lsp (pt)
  "The LSP position (UTF-16 columns) of buffer position PT."
  (save-excursion
    (goto-char pt)
    (list :line (1- (line-number-at-pos pt t))
          :character (/ (length (encode-coding-string
                                 (buffer-substring-no-properties (line-beginning-position) pt)
                                 'utf-16le))
                        2))))

;;; Connecting

(defun agentls-connection-for (&optional path)
  "The live connection for PATH's workspace (default: this buffer's file)."
  (let ((root (and (or path buffer-file-name)
                   (file-name-as-directory
                    (expand-file-name (agentls--find-root (or path buffer-file-name)))))))
    (or (and root (cdr (assoc root agentls--connections)))
        ;; Any live connection, for buffers outside every root (*agentls*).
        (cdr (car agentls--connections)))))

(defun agentls--client-capabilities ()
  (list :workspace (list :applyEdit t
                         :workspaceEdit (list :documentChanges t)
                         :configuration t)
        :window (list :workDoneProgress t
                      :showDocument (list :support t)
                      ;; The server asks (trust, protected files, network)
                      ;; only a client that says it can show the question.
                      :showMessage (list :messageActionItem (list :additionalPropertiesSupport :json-false)))
        :textDocument (list :synchronization (list :didSave t)
                            :publishDiagnostics (list :relatedInformation :json-false)
                            :codeAction (list :codeActionLiteralSupport
                                              (list :codeActionKind
                                                    (list :valueSet ["quickfix" "source" "refactor"]))))
        ;; A question then names the task that asks (taskId).
        :experimental (list :agentls (list :questionTaskId t))))

(defun agentls--stderr-tail (buf)
  "The last non-empty line of BUF (a server's stderr buffer), or nil."
  (when (buffer-live-p buf)
    (with-current-buffer buf
      (car (last (cl-remove-if
                  ;; Emacs's own line when the stderr pipe closes.
                  (lambda (l) (string-match-p "\\`Process .* stderr " l))
                  (split-string (string-trim (buffer-string)) "\n" t "[ \t]+")))))))

(defun agentls--describe (conn)
  "\"agentls v1.2 (model gpt-4o, approval sandboxed)\": CONN's server, in
words, from its initialize answer and agentls.info."
  (let* ((version (plist-get (agentls-connection-server-info conn) :version))
         (info (ignore-errors
                 (jsonrpc-request conn :workspace/executeCommand
                                  (list :command "agentls.info" :arguments (vector (make-hash-table)))
                                  :timeout 5)))
         (parts (delq nil (list (let ((m (plist-get info :model))) (and (stringp m) (not (string-empty-p m)) (concat "model " m)))
                                (let ((a (plist-get info :approval))) (and (stringp a) (concat "approval " a)))))))
    (concat "agentls" (if (and (stringp version) (not (string-empty-p version))) (concat " " version) "")
            (if parts (concat " (" (string-join parts ", ") ")") ""))))

;;;###autoload
(defun agentls-connect (&optional root)
  "Start `agentls serve' for ROOT (default: this buffer's workspace).
Returns the connection; an existing live one is reused.  Eglot and its
servers are not touched.  It says that it is connecting, then what it
connected to (version, model, approval mode), or why it could not: no
server program, or the server exited (with its stderr's last line)."
  (interactive)
  (let* ((root (file-name-as-directory
                (expand-file-name (or root (agentls--find-root (or buffer-file-name default-directory))))))
         (old (cdr (assoc root agentls--connections))))
    (if (and old (jsonrpc-running-p old))
        (progn
          (when (called-interactively-p 'any)
            (message "agentls: already connected to %s in %s" (agentls--describe old) (abbreviate-file-name root)))
          old)
      (let* ((name (format "agentls %s" (abbreviate-file-name root)))
             (program (or (agentls--program)
                          (user-error "agentls is not on exec-path: put it there, set `agentls-program', or M-x agentls-install-server")))
             (_ (unless (executable-find (car program))
                  (user-error "agentls: cannot start the server: %s not found (set `agentls-program')" (car program))))
             (stderr (get-buffer-create (format "*%s stderr*" name)))
             (default-directory root)
             (_ (progn (with-current-buffer stderr (let ((inhibit-read-only t)) (erase-buffer)))
                       (message "agentls: connecting to %s in %s..." (car program) (abbreviate-file-name root))))
             (conn
              (make-instance
               'agentls-connection
               :name name :root root
               :process (lambda ()
                          (make-process :name name :command program
                                        :connection-type 'pipe :noquery t
                                        :coding 'utf-8-emacs-unix
                                        :stderr stderr))
               :request-dispatcher #'agentls--handle-request
               :notification-dispatcher #'agentls--handle-notification
               :on-shutdown (lambda (c)
                              (setq agentls--connections (cl-remove c agentls--connections :key #'cdr))))))
        (setq agentls--connections (cons (cons root conn) (assoc-delete-all root agentls--connections)))
        (condition-case err
            (setf (agentls-connection-server-info conn)
                  (plist-get (jsonrpc-request conn :initialize
                                              (list :processId (emacs-pid)
                                                    :clientInfo (list :name "agentls.el")
                                                    :rootUri (agentls--path-to-uri root)
                                                    :workspaceFolders (vector (list :uri (agentls--path-to-uri root) :name root))
                                                    :capabilities (agentls--client-capabilities)
                                                    :initializationOptions (or agentls-initialization-options (make-hash-table))))
                             :serverInfo))
          (error
           ;; The server died before it answered: say why, in its words.
           (let ((proc (ignore-errors (jsonrpc--process conn)))
                 (errp (get-buffer-process stderr))
                 tail)
             (with-timeout (2 nil)
               (while (and proc (process-live-p proc)) (accept-process-output proc 0.05)))
             ;; What it wrote last may still be in the stderr pipe.
             (with-timeout (1 nil)
               (while (and errp (process-live-p errp)) (accept-process-output errp 0.05)))
             (setq tail (agentls--stderr-tail stderr))
             (setq agentls--connections (assoc-delete-all root agentls--connections))
             (ignore-errors (jsonrpc-shutdown conn))
             (user-error "agentls: the server %s: %s"
                         (if (and proc (not (process-live-p proc)))
                             (format "exited (status %s)" (process-exit-status proc))
                           "did not start")
                         (or tail (error-message-string err))))))
        (jsonrpc-notify conn :initialized (make-hash-table))
        ;; Buffers already visiting files of this root.
        (let ((n 0))
          (dolist (b (buffer-list))
            (with-current-buffer b
              (when (and buffer-file-name (string-prefix-p root (expand-file-name buffer-file-name)))
                (setq n (1+ n))
                (agentls-managed-mode 1))))
          ;; A sign that it worked: the connection started nothing visible.
          (message "agentls: connected to %s in %s (%d buffer%s; C-c a r runs a task)"
                   (agentls--describe conn) (abbreviate-file-name root) n (if (= n 1) "" "s")))
        conn))))

(defun agentls-shutdown (&optional conn)
  "Stop CONN (default: this buffer's connection)."
  (interactive)
  (when-let ((c (or conn (agentls-connection-for))))
    (ignore-errors (jsonrpc-request c :shutdown nil :timeout 3))
    (ignore-errors (jsonrpc-notify c :exit nil))
    (jsonrpc-shutdown c)))

;;; Text synchronization

(defvar-local agentls--version 0)
(defvar-local agentls--dirty nil)
(defvar-local agentls--conn nil)
(defvar agentls--sync-timer nil)
(defvar agentls--quiet-visit nil "Non-nil: do not manage buffers visited now.")

(defun agentls--language-id ()
  (string-remove-suffix "-mode" (string-remove-suffix "-ts-mode" (symbol-name major-mode))))

(define-minor-mode agentls-managed-mode
  "Send this buffer's text to agentls (it keeps Eglot's own server)."
  :lighter nil
  (if agentls-managed-mode
      (let ((c (agentls-connection-for)))
        (if (not c)
            (setq agentls-managed-mode nil)
          (setq agentls--conn c agentls--version 0 agentls--dirty nil)
          (add-hook 'after-change-functions #'agentls--after-change nil t)
          (add-hook 'after-save-hook #'agentls--did-save nil t)
          (add-hook 'kill-buffer-hook #'agentls--did-close nil t)
          (add-hook 'flymake-diagnostic-functions #'agentls-flymake-backend nil t)
          (flymake-mode 1)
          (jsonrpc-notify c :textDocument/didOpen
                          (list :textDocument
                                (list :uri (agentls--path-to-uri buffer-file-name)
                                      :languageId (agentls--language-id)
                                      :version agentls--version
                                      :text (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max))))))))
    (remove-hook 'after-change-functions #'agentls--after-change t)
    (remove-hook 'after-save-hook #'agentls--did-save t)
    (remove-hook 'kill-buffer-hook #'agentls--did-close t)
    (remove-hook 'flymake-diagnostic-functions #'agentls-flymake-backend t)
    (agentls--did-close)))

(defun agentls--live-p ()
  (and agentls--conn (jsonrpc-running-p agentls--conn)))

(defun agentls--after-change (&rest _)
  (setq agentls--dirty t)
  (unless agentls--sync-timer
    (setq agentls--sync-timer (run-with-idle-timer 0.2 nil #'agentls-flush))))

(defun agentls--send-change ()
  "Send this buffer's text if it changed since the last send."
  (when (and agentls--dirty (agentls--live-p))
    (setq agentls--dirty nil)
    (cl-incf agentls--version)
    (jsonrpc-notify agentls--conn :textDocument/didChange
                    (list :textDocument (list :uri (agentls--path-to-uri buffer-file-name)
                                              :version agentls--version)
                          :contentChanges
                          (vector (list :text (save-restriction
                                                (widen)
                                                (buffer-substring-no-properties (point-min) (point-max)))))))))

(defun agentls-flush ()
  "Send every managed buffer's pending changes now."
  (setq agentls--sync-timer nil)
  (dolist (b (buffer-list))
    (with-current-buffer b
      (when agentls-managed-mode (agentls--send-change)))))

(defun agentls--did-save ()
  (when (agentls--live-p)
    (agentls--send-change)
    (jsonrpc-notify agentls--conn :textDocument/didSave
                    (list :textDocument (list :uri (agentls--path-to-uri buffer-file-name))))))

(defun agentls--did-close ()
  (when (and (agentls--live-p) buffer-file-name)
    (ignore-errors
      (jsonrpc-notify agentls--conn :textDocument/didClose
                      (list :textDocument (list :uri (agentls--path-to-uri buffer-file-name))))))
  (setq agentls--conn nil))

(defun agentls--maybe-manage ()
  "For `find-file-hook': manage files of a connected workspace."
  (when (and buffer-file-name (not agentls--quiet-visit) (not agentls-managed-mode))
    (let ((root (file-name-as-directory (expand-file-name (agentls--find-root buffer-file-name)))))
      (when (assoc root agentls--connections)
        (agentls-managed-mode 1)))))
(add-hook 'find-file-hook #'agentls--maybe-manage)

;;; Workspace edits

(defun agentls--apply-text-edits (edits)
  "Apply LSP text EDITS to the current buffer, last first."
  (let ((sorted (sort (append edits nil)
                      (lambda (a b)
                        (let ((pa (plist-get (plist-get a :range) :start))
                              (pb (plist-get (plist-get b :range) :start)))
                          (or (> (plist-get pa :line) (plist-get pb :line))
                              (and (= (plist-get pa :line) (plist-get pb :line))
                                   (> (plist-get pa :character) (plist-get pb :character)))))))))
    (save-excursion
      (save-restriction
        (widen)
        (dolist (e sorted)
          (let* ((r (plist-get e :range))
                 (beg (agentls--lsp-to-point (plist-get r :start)))
                 (end (agentls--lsp-to-point (plist-get r :end))))
            (goto-char beg)
            (delete-region beg end)
            (insert (plist-get e :newText))))))))

(defun agentls--edit-file (uri edits version)
  "Apply EDITS to URI's buffer, visiting (and then saving) it if needed.
Returns nil when VERSION does not match the buffer's."
  (let* ((path (agentls--uri-to-path uri))
         (buf (find-buffer-visiting path))
         (opened (not buf)))
    (when opened
      (let ((agentls--quiet-visit t))
        (setq buf (find-file-noselect path))))
    (with-current-buffer buf
      (if (and version agentls-managed-mode (not opened) (/= version agentls--version))
          nil
        (agentls--apply-text-edits edits)
        (when agentls-managed-mode (agentls--send-change))
        (when (and opened agentls-save-unopened)
          (let ((inhibit-message t)) (save-buffer))
          (kill-buffer buf))
        t))))

(defun agentls--apply-workspace-edit (edit)
  "Apply an LSP WorkspaceEdit; non-nil when every part applied."
  (agentls-flush)
  (let ((ok t))
    (cl-loop for (uri edits) on (plist-get edit :changes) by #'cddr
             do (unless (agentls--edit-file (substring (symbol-name uri) 1) edits nil)
                  (setq ok nil)))
    (cl-loop for dc across (or (plist-get edit :documentChanges) [])
             do (pcase (plist-get dc :kind)
                  ("create"
                   (let ((p (agentls--uri-to-path (plist-get dc :uri))))
                     (unless (file-exists-p p)
                       (make-directory (file-name-directory p) t)
                       (write-region "" nil p nil 'silent))))
                  ((or "rename" "delete") (setq ok nil))
                  (_ (let ((td (plist-get dc :textDocument)))
                       (unless (agentls--edit-file (plist-get td :uri) (plist-get dc :edits)
                                                   (let ((v (plist-get td :version))) (and (numberp v) v)))
                         (setq ok nil))))))
    ok))

;;; The server's requests and notifications

(defun agentls--handle-request (_conn method params)
  (pcase method
    ('workspace/applyEdit
     (let ((ok (condition-case err
                   (agentls--apply-workspace-edit (plist-get params :edit))
                 (error (message "agentls: applying an edit failed: %s" (error-message-string err)) nil))))
       (list :applied (if ok t :json-false))))
    ('window/workDoneProgress/create nil)
    ('client/registerCapability nil)
    ('workspace/configuration
     (apply #'vector (make-list (length (plist-get params :items)) nil)))
    ('window/showDocument
     (let ((uri (plist-get params :uri)))
       (if (and (string-suffix-p ".diff" uri) (fboundp 'agentls-review-show-document))
           (agentls-review-show-document (agentls--uri-to-path uri))
         (let ((agentls--quiet-visit nil))
           (display-buffer (find-file-noselect (agentls--uri-to-path uri)))))
       (list :success t)))
    ('window/showMessageRequest (agentls--ask params))
    (_ (jsonrpc-error :code -32601 :message (format "agentls.el does not handle %s" method)))))

(defun agentls--one-line (s)
  "S's first line, with a note when more follows; a review task's
\"Changes … wait for your review (…)\" line is kept, it says what to do."
  (let* ((lines (split-string (string-trim (or s "")) "\n"))
         (first (car lines))
         (review (cl-find-if (lambda (l) (string-match-p "wait for your review" l)) (cdr lines))))
    (cond (review (concat first " " review))
          ((cdr lines) (concat first " … (see *agentls*)"))
          (t (or first "")))))

(defun agentls--handle-notification (conn method params)
  (pcase method
    ('textDocument/publishDiagnostics (agentls--publish conn params))
    ('agentls/event (agentls--on-event params))
    ('$/progress (agentls--on-progress params))
    ;; The echo area gets one line: a task's whole answer is in *agentls*.
    ('window/showMessage (message "agentls: %s" (agentls--one-line (plist-get params :message))))
    (_ nil)))

;;; The server's questions

(defun agentls--ask (params)
  "Ask the user the server's question (window/showMessageRequest PARAMS).
The question's text is the prompt and its actions the choices: whether
to trust a workspace .agentls.json, change a protected file or run a
command again with network.  Nothing is answered for the user: quitting
\(C-g) or no choice answers null, which the server takes as no."
  (let* ((actions (append (plist-get params :actions) nil))
         (titles (mapcar (lambda (a) (plist-get a :title)) actions))
         (question (or (plist-get params :message) "")))
    (if (null titles)
        (progn (message "agentls: %s" question) nil)
      ;; Which task waits, said where the user is before the prompt.
      (let* ((id (agentls--asked question (plist-get params :taskId)))
             (pick (unwind-protect
                       (condition-case nil
                           (completing-read (format "agentls asks: %s\nAnswer (%s): " question
                                                    (string-join titles " / "))
                                            titles nil t)
                         (quit nil))
                     (agentls--answered id))))
        (and (member pick titles) (list :title pick))))))

;;; Diagnostics, through Flymake

(defvar-local agentls--flymake-report nil)

(defun agentls--diag-type (sev)
  (pcase sev (1 :error) (2 :warning) (_ :note)))

(defcustom agentls-dedupe-diagnostics t
  "Non-nil: hide an agentls diagnostic that repeats another source's message
on the same line (a compile error gopls already shows, through Eglot)."
  :type 'boolean :group 'agentls)

(defvar-local agentls--shown 0 "How many agentls diagnostics Flymake shows.")

(defun agentls--repeated-p (msg beg)
  "Non-nil when another Flymake backend shows MSG on the line of BEG."
  (let ((msg (string-trim (or msg ""))))
    (and agentls-dedupe-diagnostics
         (not (string-empty-p msg))
         (save-excursion
           (goto-char beg)
           (cl-some (lambda (o)
                      (and (not (eq (flymake-diagnostic-backend o) 'agentls-flymake-backend))
                           (let ((om (string-trim (or (flymake-diagnostic-text o) ""))))
                             (and (not (string-empty-p om))
                                  (or (string-search om msg) (string-search msg om))))))
                    (flymake-diagnostics (line-beginning-position) (line-end-position)))))))

(defun agentls--flymake-diags ()
  (let ((c (or agentls--conn (agentls-connection-for))))
    (when (and c buffer-file-name)
      (let ((out
             (delq nil
                   (mapcar (lambda (d)
                             (let* ((r (plist-get d :range))
                                    (beg (agentls--lsp-to-point (plist-get r :start)))
                                    (end (agentls--lsp-to-point (plist-get r :end))))
                               (when (= beg end)
                                 (setq end (min (point-max) (1+ beg))))
                               (unless (agentls--repeated-p (plist-get d :message) beg)
                                 (flymake-make-diagnostic (current-buffer) beg end
                                                          (agentls--diag-type (plist-get d :severity))
                                                          (format "agentls: %s" (plist-get d :message))))))
                           (gethash (agentls--path-to-uri buffer-file-name) (agentls-connection-diagnostics c))))))
        (setq agentls--shown (length out))
        out))))

(defun agentls--after-other-report (backend &rest _)
  "After another Flymake backend reports: show agentls's list again if
what it repeats changed."
  (when (and agentls-managed-mode agentls--flymake-report
             (not (eq backend 'agentls-flymake-backend)))
    (let ((buf (current-buffer)))
      (run-at-time 0 nil
                   (lambda ()
                     (when (buffer-live-p buf)
                       (with-current-buffer buf
                         (let ((n agentls--shown)
                               (diags (agentls--flymake-diags)))
                           (unless (= n (length diags))
                             (ignore-errors
                               (funcall agentls--flymake-report diags
                                        :region (cons (point-min) (point-max)))))))))))))
;; Flymake has no hook for "a backend reported"; its report handler is
;; the one place every backend's list passes through.
(when (fboundp 'flymake--handle-report)
  (advice-add 'flymake--handle-report :after #'agentls--after-other-report))

(defun agentls-flymake-backend (report-fn &rest _)
  "Flymake backend: the diagnostics agentls published for this buffer."
  (setq agentls--flymake-report report-fn)
  (funcall report-fn (agentls--flymake-diags)))

(defun agentls--publish (conn params)
  (let* ((uri (plist-get params :uri))
         (diags (append (plist-get params :diagnostics) nil)))
    (puthash uri diags (agentls-connection-diagnostics conn))
    (when-let ((b (find-buffer-visiting (agentls--uri-to-path uri))))
      (with-current-buffer b
        (cond ((not flymake-mode) nil)
              ((not agentls--flymake-report)
               ;; Flymake has not run the backend yet (it waits for the
               ;; buffer to be shown): run it now.
               (flymake-start nil t))
              (t (condition-case nil
                     (funcall agentls--flymake-report (agentls--flymake-diags)
                              :region (cons (point-min) (point-max)))
                   (error (flymake-start nil t)))))))))

(defun agentls-diagnostics (&optional buffer)
  "The agentls diagnostics (LSP plists) of BUFFER's file."
  (with-current-buffer (or buffer (current-buffer))
    (let ((c (or agentls--conn (agentls-connection-for))))
      (and c buffer-file-name
           (gethash (agentls--path-to-uri buffer-file-name) (agentls-connection-diagnostics c))))))

;;; Code actions

(defun agentls--line-diagnostics (line)
  (cl-remove-if-not
   (lambda (d)
     (let ((r (plist-get d :range)))
       (<= (plist-get (plist-get r :start) :line) line (plist-get (plist-get r :end) :line))))
   (agentls-diagnostics)))

(defun agentls-code-action-list ()
  "The agentls code actions for the current line."
  (agentls-flush)
  (let* ((line (1- (line-number-at-pos (point) t)))
         (range (list :start (agentls--point-to-lsp (line-beginning-position))
                      :end (agentls--point-to-lsp (line-end-position)))))
    (append (jsonrpc-request agentls--conn :textDocument/codeAction
                             (list :textDocument (list :uri (agentls--path-to-uri buffer-file-name))
                                   :range range
                                   :context (list :diagnostics (apply #'vector (agentls--line-diagnostics line)))))
            nil)))

(defun agentls--execute-action (action)
  (let ((edit (plist-get action :edit))
        (cmd (plist-get action :command)))
    (when edit (agentls--apply-workspace-edit edit))
    (when cmd
      ;; A Command is {title, command, arguments}; a CodeAction's :command is one.
      (let ((c (if (stringp cmd) action cmd)))
        (jsonrpc-request agentls--conn :workspace/executeCommand
                         (list :command (plist-get c :command)
                               :arguments (or (plist-get c :arguments) [])))))))

;;;###autoload
(defun agentls-code-actions (&optional title)
  "Pick and run one of agentls's code actions for the current line.
TITLE (a substring) picks without asking."
  (interactive)
  (unless (agentls--live-p) (user-error "agentls: this buffer is not connected (M-x agentls-connect)"))
  (let* ((actions (agentls-code-action-list))
         (titles (mapcar (lambda (a) (plist-get a :title)) actions)))
    (unless actions (user-error "agentls: no code actions on this line"))
    (let* ((pick (if title
                     (cl-find-if (lambda (tt) (string-match-p (regexp-quote title) tt)) titles)
                   (completing-read "agentls action: " titles nil t)))
           (action (cl-find pick actions :key (lambda (a) (plist-get a :title)) :test #'equal)))
      (unless action (user-error "agentls: no action %S here (offered: %S)" title titles))
      (agentls--execute-action action))))

(provide 'agentls-conn)
;;; agentls-conn.el ends here
